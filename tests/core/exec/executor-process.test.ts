import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRunning } from '../../../main/core/exec/process-tree';
import { request, setup, tempDir } from './exec-helpers';

// Process lifecycle of the executor against the fake runtime: timeout, cancel, crash,
// missing binary, leftovers. Each test asserts on the process table after the promise
// resolved, never on elapsed time.

function readPids(file: string): { parent: number; grandchild: number } {
  return JSON.parse(readFileSync(file, 'utf8')) as { parent: number; grandchild: number };
}

/** Cancels as soon as the fake runtime reports its grandchild (an event, not a sleep). */
function cancelWhenSpawned(controller: AbortController, marks: { abortedAt?: number }) {
  return (tail: string) => {
    if (!controller.signal.aborted && tail.includes('spawned')) {
      marks.abortedAt = performance.now();
      controller.abort();
    }
  };
}

describe('LocalRuntimeExecutor process lifecycle', () => {
  it('times out a runtime that never ends and kills it', async () => {
    const { executor, turnDirs } = setup();
    let pid = 0;
    const outcome = await executor.execute(request({ FAKE_MODE: 'sleep' }, { timeoutMs: 400, onSpawn: (p) => (pid = p) }));
    expect(outcome).toMatchObject({ status: 'failed', reason: 'timeout', exitCode: null });
    expect(outcome.summary).toMatch(/timed out after 400 ms/);
    expect(outcome.summary).toContain('working...');
    expect(pid).toBeGreaterThan(0);
    expect(await isRunning(pid)).toBe(false);
    expect(turnDirs()).toEqual([]);
  });

  it.each([
    { label: 'in its process group', escape: '0' },
    { label: 'in its own session (left the group)', escape: '1' },
  ])('cancel mid-turn kills the whole tree, grandchild $label included', async ({ escape }) => {
    // The default grace period: the grandchild ignores SIGTERM, so this measures the real worst case.
    const { executor, logging, turnDirs } = setup({ killGraceMs: 1_500 });
    const pidsFile = path.join(tempDir('pids'), 'pids.json');
    const controller = new AbortController();
    const marks: { abortedAt?: number } = {};
    const outcome = await executor.execute(
      request(
        { FAKE_MODE: 'spawn-child', FAKE_PIDS_FILE: pidsFile, FAKE_ESCAPE: escape },
        { signal: controller.signal, onOutput: cancelWhenSpawned(controller, marks) },
      ),
    );
    const latencyMs = performance.now() - (marks.abortedAt ?? Number.NaN);
    const { parent, grandchild } = readPids(pidsFile);
    expect(outcome).toMatchObject({ status: 'canceled', reason: 'canceled' });
    expect(await isRunning(parent)).toBe(false);
    expect(await isRunning(grandchild)).toBe(false);
    expect(turnDirs()).toEqual([]);
    const stopped = logging.entries.find((e) => e.msg === 'runtime process tree stopped');
    expect(stopped?.data).toMatchObject({ reason: 'canceled', escalatedToSigkill: true });
    // Measured, not asserted (timing on a shared 2-core box is not a test oracle).
    console.info(`cancel → tree dead (escape=${escape}): ${latencyMs.toFixed(0)} ms (executor says ${String(stopped?.data?.latencyMs)} ms)`);
  });

  it('reports a crash with its exit code and stderr', async () => {
    const { executor } = setup();
    const outcome = await executor.execute(request({ FAKE_MODE: 'crash' }, { kind: 'work_order' }));
    expect(outcome).toMatchObject({ status: 'failed', reason: 'exit', exitCode: 3 });
    expect(outcome.summary).toBe('claude exited with code 3\nfatal: the fake runtime crashed on purpose');
    expect(outcome.outputTail).toContain('fatal: the fake runtime crashed');
  });

  it('reports a missing runtime binary as spawn_error with a clear message', async () => {
    const { executor, turnDirs } = setup();
    const outcome = await executor.execute(request({}, { binary: '/nonexistent/bin/claude' }));
    expect(outcome).toMatchObject({ status: 'failed', reason: 'spawn_error', exitCode: null });
    expect(outcome.summary).toMatch(
      /^could not start claude \(\/nonexistent\/bin\/claude\) \[ENOENT\]: the program was not found\. Check that claude is installed/,
    );
    expect(turnDirs()).toEqual([]);
  });

  it('runs a 300 KiB prompt (past the 128 KiB Linux argument cap): it travels on stdin', async () => {
    const { executor } = setup();
    const outcome = await executor.execute(request({ FAKE_MODE: 'json' }, { prompt: 'p'.repeat(300 * 1024) }));
    expect(outcome).toMatchObject({ status: 'succeeded', reason: 'exit' });
  });

  it('reports a prompt over the 1 MiB protocol bound failed before anything is spawned', async () => {
    const { executor, turnDirs } = setup();
    let spawned = false;
    const prompt = 'é'.repeat(512 * 1024 + 1); // 2 bytes each in UTF-8: one byte over 1 MiB
    const outcome = await executor.execute(request({ FAKE_MODE: 'json' }, { prompt, onSpawn: () => (spawned = true) }));
    expect(outcome).toMatchObject({ status: 'failed', reason: 'spawn_error', exitCode: null, outputBytes: 0 });
    expect(outcome.summary).toBe("The unit's prompt is 1048578 bytes; a unit's prompt may be at most 1048576 bytes (1 MiB). Nothing was run.");
    expect(spawned).toBe(false);
    expect(turnDirs()).toEqual([]);
  });

  it('does not start at all when already canceled', async () => {
    const { executor, turnDirs } = setup();
    const controller = new AbortController();
    controller.abort();
    let spawned = false;
    const outcome = await executor.execute(request({ FAKE_MODE: 'json' }, { signal: controller.signal, onSpawn: () => (spawned = true) }));
    expect(outcome).toMatchObject({ status: 'canceled', reason: 'canceled', summary: 'canceled before claude started' });
    expect(spawned).toBe(false);
    expect(turnDirs()).toEqual([]);
  });

  it('stops processes a runtime leaves behind after it exits on its own', async () => {
    const { executor, logging } = setup();
    const pidsFile = path.join(tempDir('pids'), 'pids.json');
    const outcome = await executor.execute(request({ FAKE_MODE: 'leave-child', FAKE_PIDS_FILE: pidsFile }, { kind: 'work_order' }));
    expect(outcome).toMatchObject({ status: 'succeeded', reason: 'exit', exitCode: 0 });
    expect(await isRunning(readPids(pidsFile).grandchild)).toBe(false);
    expect(logging.entries.some((e) => e.msg === 'runtime left processes behind; stopped them')).toBe(true);
  });

  it('rejects an invalid request without starting anything', async () => {
    const { executor } = setup();
    const outcome = await executor.execute(request({}, { mcp: { serverUrl: 'file:///etc/passwd', token: 'tok en' }, resumeSessionId: '--dangerous' }));
    expect(outcome).toMatchObject({ status: 'failed', reason: 'spawn_error' });
    expect(outcome.summary).toMatch(/invalid execution request/);
    expect(outcome.summary).toMatch(/mcp\.serverUrl/);
    expect(outcome.summary).toMatch(/resumeSessionId/);
  });
});

describe('the start call beside the spawn', () => {
  /** A start the test answers from onSpawn: proof that the runtime began while the call was under way. */
  function startAnsweredOnSpawn(taken: boolean) {
    let answer: (ok: boolean) => void = () => undefined;
    const startAccepted = new Promise<boolean>((resolve) => (answer = resolve));
    const seen = { pid: 0 };
    return { startAccepted, seen, onSpawn: (pid: number) => ((seen.pid = pid), answer(taken)) };
  }

  it('the runtime starts while the start call is under way and gets its prompt once the start is taken', async () => {
    const { executor, turnDirs } = setup();
    const report = path.join(tempDir('start-taken'), 'report.json');
    const start = startAnsweredOnSpawn(true);
    const outcome = await executor.execute(
      request({ FAKE_MODE: 'inspect', FAKE_REPORT_FILE: report }, { prompt: 'the prompt', startAccepted: start.startAccepted, onSpawn: start.onSpawn }),
    );
    expect(outcome.status).toBe('succeeded');
    expect(start.seen.pid).toBeGreaterThan(0);
    expect((JSON.parse(readFileSync(report, 'utf8')) as { stdin: string }).stdin).toBe('the prompt');
    expect(turnDirs()).toEqual([]);
  });

  it('a refused start: the runtime started beside it is stopped without ever having had its prompt', async () => {
    const { executor, turnDirs } = setup();
    const report = path.join(tempDir('start-refused'), 'report.json');
    const start = startAnsweredOnSpawn(false);
    const outcome = await executor.execute(
      request({ FAKE_MODE: 'inspect', FAKE_REPORT_FILE: report }, { prompt: 'the prompt', startAccepted: start.startAccepted, onSpawn: start.onSpawn }),
    );
    expect(outcome.status).toBe('canceled');
    expect(existsSync(report)).toBe(false);
    expect(await isRunning(start.seen.pid)).toBe(false);
    expect(turnDirs()).toEqual([]);
  });

  it('where a runtime could outlive this host (no parent-death watch), nothing starts before the start is taken', async () => {
    const { executor, turnDirs } = setup({ parentDeathWatch: false });
    let spawned = false;
    const outcome = await executor.execute(request({ FAKE_MODE: 'json' }, { startAccepted: Promise.resolve(false), onSpawn: () => (spawned = true) }));
    expect(outcome.status).toBe('canceled');
    expect(spawned).toBe(false);
    expect(turnDirs()).toEqual([]);
  });
});

describe('the turn folder after the outcome', () => {
  it('with cleanupLater, the outcome comes while the folder is still there, and the removal handed over removes it', async () => {
    const { executor, turnDirs } = setup();
    const removals: Promise<void>[] = [];
    const outcome = await executor.execute(request({ FAKE_MODE: 'json' }, { cleanupLater: (removal) => removals.push(removal) }));
    expect(outcome.status).toBe('succeeded');
    expect(removals).toHaveLength(1);
    expect(turnDirs()).toHaveLength(1);
    await removals[0];
    expect(turnDirs()).toEqual([]);
  });
});
