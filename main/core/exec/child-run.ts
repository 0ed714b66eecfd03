import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { Clock, Logger } from '../base/ports';
import { terminateTree } from './process-tree';
import { errorText } from '../../../shared/errors';

/**
 * Runs one runtime process to its end: stdin closed, output streamed to the caller, an
 * outer timeout, cancellation through an AbortSignal, and the whole process tree stopped
 * and verified dead whichever way it ends (processes a runtime leaves behind after a
 * normal exit are stopped too: a finished turn owns nothing that still runs).
 */
export type ChildEnd = 'exit' | 'timeout' | 'canceled' | 'spawn_error';

export interface ChildSpec {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed (the prompt: never argv). Without it stdin is closed at once. */
  stdin?: string;
  /** stdin is written only once this resolves true; false stops the process as canceled (see ExecutionRequest.startAccepted). */
  stdinWhen?: Promise<boolean>;
  timeoutMs: number;
  signal: AbortSignal;
  killGraceMs: number;
  /** Pass a pipe as fd 3 that the launcher watches (see lifeline.ts); held open until the child ends. */
  lifeline?: boolean;
  /** A launcher started ahead (warm-launcher.ts): instead of a spawn, the command goes to it over its lifeline. */
  warm?: ChildProcess;
  /** What `warm` is sent on its lifeline instead of `{command, args, cwd, env}` (a handoff bridge's command, see bridge-source.ts). */
  handoff?: object;
  clock: Clock;
  log: Logger;
  onSpawn?(pid: number): void;
  /** A promise back: the stream is paused until it settles (the reader is behind; the runtime then waits on its pipe). */
  onStdout(chunk: Buffer): void | Promise<void>;
  onStderr(chunk: Buffer): void | Promise<void>;
}

/** Feeds `stream` to `read`, pausing it while a promise `read` gave back is pending. */
function readPaced(stream: Readable | null, read: (chunk: Buffer) => void | Promise<void>): void {
  stream?.on('data', (chunk: Buffer) => {
    const wait = read(chunk);
    if (!wait) return;
    stream.pause();
    const resume = () => stream.resume();
    wait.then(resume, resume);
  });
}

export interface ChildResult {
  endedBy: ChildEnd;
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  spawnError?: NodeJS.ErrnoException;
  pid?: number;
  /** From the stop request (abort or timeout) to the tree verified dead. */
  stopLatencyMs?: number | undefined;
  /** Pids still running after SIGKILL (should never happen; logged loudly). */
  survivors: number[];
  /** Processes the runtime left running after it exited on its own (they were stopped). */
  leftovers: number;
}

/** How long to wait for the pipes to close once the tree is gone (they close at once). */
const CLOSE_WAIT_MS = 1_000;
/** How long to wait for the root's 'exit' after it was killed (it is our child: reaped fast). */
const EXIT_WAIT_MS = 1_000;

function waitFor<T>(clock: Clock, promise: Promise<T>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = clock.setTimeout(() => resolve(false), ms);
    void promise.then(() => {
      clock.clearTimeout(timer);
      resolve(true);
    });
  });
}

function safely(log: Logger, what: string, fn: () => void): void {
  try {
    fn();
  } catch (error) {
    log.warn(`${what} callback threw`, { error: errorText(error) });
  }
}

/** How long the launcher may take to start the runtime before it counts as a spawn failure. */
const LAUNCH_WAIT_MS = 30_000;

/** The launcher's first line on the lifeline: the runtime's start, or why it did not start. */
function launcherStart(
  lifeline: NonNullable<ChildProcess['stdio'][3]>,
  exited: Promise<unknown>,
  clock: Clock,
): Promise<{ ok: true } | { ok: false; code: string; message: string }> {
  return new Promise((resolve) => {
    let text = '';
    let done = false;
    const finish = (answer: { ok: true } | { ok: false; code: string; message: string }) => {
      if (done) return;
      done = true;
      clock.clearTimeout(timer);
      lifeline.off('data', onData);
      resolve(answer);
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const nl = text.indexOf('\n');
      if (nl < 0) {
        if (text.length > 4096) finish({ ok: false, code: 'ESPAWN', message: 'the runtime launcher said something unreadable' });
        return;
      }
      try {
        const line = JSON.parse(text.slice(0, nl)) as { spawned?: unknown; spawnError?: { code?: unknown; message?: unknown } };
        if (typeof line.spawned === 'number') return finish({ ok: true });
        const e = line.spawnError;
        finish({
          ok: false,
          code: typeof e?.code === 'string' ? e.code : 'ESPAWN',
          message: typeof e?.message === 'string' ? e.message : 'the runtime did not start',
        });
      } catch {
        finish({ ok: false, code: 'ESPAWN', message: 'the runtime launcher said something unreadable' });
      }
    };
    lifeline.on('data', onData);
    // Its last line may still be in the pipe when its exit is seen: read that first.
    void exited.then(() => {
      const gone = () => finish({ ok: false, code: 'ESPAWN', message: 'the runtime launcher exited before starting the runtime' });
      if (lifeline.destroyed || (lifeline as { readableEnded?: boolean }).readableEnded) gone();
      else lifeline.once('close', gone);
    });
    const timer = clock.setTimeout(
      () => finish({ ok: false, code: 'ETIMEDOUT', message: 'the runtime launcher did not start the runtime in time' }),
      LAUNCH_WAIT_MS,
    );
  });
}

export async function runChild(spec: ChildSpec): Promise<ChildResult> {
  const base = { exitCode: null, exitSignal: null, survivors: [], leftovers: 0 };
  if (spec.signal.aborted) return { ...base, endedBy: 'canceled' };

  let child: ChildProcess;
  try {
    child =
      spec.warm ??
      spawn(spec.command, spec.args, {
        cwd: spec.cwd,
        env: spec.env,
        stdio: [spec.stdin !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe', ...(spec.lifeline ? (['pipe'] as const) : [])],
        // POSIX: the runtime leads a new process group, so the whole tree can be signalled.
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
  } catch (error) {
    return { ...base, endedBy: 'spawn_error', spawnError: error as NodeJS.ErrnoException };
  }
  // The lifeline carries nothing; only its closing (this process dying) means something.
  const lifeline = spec.lifeline ? child.stdio[3] : null;
  lifeline?.on('error', () => undefined);
  readPaced(child.stdout, spec.onStdout);
  readPaced(child.stderr, spec.onStderr);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  if (spec.warm) {
    const line = spec.handoff ?? { command: spec.command, args: spec.args, cwd: spec.cwd, env: spec.env };
    (lifeline as Writable | null)?.write(`${JSON.stringify(line)}\n`);
  }
  // A warm launcher is running already (its 'spawn' came long ago).
  const spawnError = spec.warm
    ? null
    : await new Promise<NodeJS.ErrnoException | null>((resolve) => {
        child.once('spawn', () => resolve(null));
        child.once('error', (error) => resolve(error));
      });
  // Later 'error' events (a failed kill) must not crash the process.
  child.on('error', (error) => spec.log.warn('runtime process error', { error: error.message }));
  if (spawnError || child.pid === undefined) {
    return { ...base, endedBy: 'spawn_error', spawnError: spawnError ?? Object.assign(new Error('no pid'), { code: 'ESPAWN' }) };
  }
  const pid = child.pid;
  // A runtime that exits without reading all of it closes the pipe: EPIPE is its business.
  child.stdin?.on('error', (error) => spec.log.debug('runtime stdin closed early', { error: error.message }));
  if (lifeline) {
    // Through the launcher, the runtime has started only when the launcher says so.
    const started = await launcherStart(lifeline, exited, spec.clock);
    if (!started.ok) {
      await terminateTree(pid, { graceMs: spec.killGraceMs, clock: spec.clock, rootReaped: false });
      lifeline.destroy();
      return { ...base, endedBy: 'spawn_error', spawnError: Object.assign(new Error(started.message), { code: started.code }) };
    }
  }
  if (spec.onSpawn) safely(spec.log, 'onSpawn', () => spec.onSpawn?.(pid));
  return supervise(spec, { child, pid, lifeline, exited, closed });
}

interface Started {
  child: ChildProcess;
  pid: number;
  lifeline: ChildProcess['stdio'][number] | null;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  closed: Promise<void>;
}

/** A started runtime to its end: stdin, the timeout and cancel, and the whole tree stopped and its pipes drained. */
async function supervise(spec: ChildSpec, started: Started): Promise<ChildResult> {
  const { child, pid, lifeline, exited, closed } = started;
  let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  void exited.then((e) => (exit = e));
  let wake: (reason: 'timeout' | 'canceled') => void = () => undefined;
  const stopRequested = new Promise<'timeout' | 'canceled'>((resolve) => (wake = resolve));
  const timer = spec.clock.setTimeout(() => wake('timeout'), spec.timeoutMs);
  const onAbort = () => wake('canceled');
  spec.signal.addEventListener('abort', onAbort, { once: true });
  if (spec.signal.aborted) onAbort();
  const writeStdin = () => {
    if (spec.stdin !== undefined) child.stdin?.end(spec.stdin, 'utf8');
    else child.stdin?.end(); // a warm launcher's stdin is a pipe: closed, as 'ignore' would be
  };
  if (!spec.stdinWhen) writeStdin();
  else void spec.stdinWhen.then((go) => (go ? writeStdin() : wake('canceled')));

  let endedBy: ChildEnd = 'exit';
  let stopLatencyMs: number | undefined;
  let survivors: number[] = [];
  let leftovers = 0;
  try {
    const stop = await Promise.race([exited.then(() => null), stopRequested]);
    if (stop === null) {
      const rest = await terminateTree(pid, { graceMs: spec.killGraceMs, clock: spec.clock, rootReaped: true });
      leftovers = rest.signaled.length;
      survivors = rest.survivors;
      if (leftovers > 0) spec.log.warn('runtime left processes behind; stopped them', { pid, count: leftovers });
    } else {
      endedBy = stop;
      const t0 = spec.clock.now();
      const result = await terminateTree(pid, { graceMs: spec.killGraceMs, clock: spec.clock, rootReaped: exit !== null });
      survivors = result.survivors;
      if (!(await waitFor(spec.clock, exited, EXIT_WAIT_MS))) spec.log.error('runtime process did not exit after SIGKILL', { pid });
      stopLatencyMs = spec.clock.now() - t0;
      spec.log.info('runtime process tree stopped', {
        pid,
        reason: stop,
        latencyMs: stopLatencyMs,
        signaled: result.signaled.length,
        escalatedToSigkill: result.escalated,
      });
    }
  } finally {
    spec.clock.clearTimeout(timer);
    spec.signal.removeEventListener('abort', onAbort);
  }
  if (survivors.length > 0) spec.log.error('runtime processes survived SIGKILL', { pid, survivors });

  lifeline?.destroy();
  // 'close' means every byte was read; it comes once nothing holds the pipes any more.
  if (!(await waitFor(spec.clock, closed, CLOSE_WAIT_MS))) {
    spec.log.warn('runtime output pipes still open after the process tree ended; closing them', { pid });
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
  const final = exit as { code: number | null; signal: NodeJS.Signals | null } | null;
  return {
    endedBy,
    exitCode: final?.code ?? null,
    exitSignal: final?.signal ?? null,
    pid,
    stopLatencyMs,
    survivors,
    leftovers,
  };
}
