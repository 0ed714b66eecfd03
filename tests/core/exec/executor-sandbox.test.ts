import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { commandWorks, probeIsolation, type IsolationTools } from '../../../main/core/exec/isolation';
import { createCommandRunner } from '../../../main/core/exec/process-runner';
import { request, setup, tempDir } from './exec-helpers';

// The process tree of a sandboxed turn: bubblewrap starts the runtime in its own session
// and pid namespace, so stopping a turn must reach past bwrap itself.

/** Pids of live processes whose environment holds `marker` (we may read them: same user or root). */
function processesWith(marker: string): number[] {
  const found = new Set<number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(marker)) found.add(Number(name));
    } catch {
      // gone, or not ours
    }
  }
  // bubblewrap and the egress bridge hold none of the turn's environment (the bridge gets it
  // on fd 3): they are the marked processes' sandbox ancestors.
  for (const pid of [...found]) for (let up = parentOf(pid); up !== null && sandboxProcess(up); up = parentOf(up)) found.add(up);
  return [...found];
}

function parentOf(pid: number): number | null {
  try {
    const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1]);
    return ppid > 1 ? ppid : null;
  } catch {
    return null;
  }
}

function sandboxProcess(pid: number): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
    return path.basename(argv[0] ?? '') === 'bwrap' || argv.some((a) => a.includes('runner-tray egress bridge'));
  } catch {
    return false;
  }
}

const linux = process.platform === 'linux';
const bwrap = linux ? await createCommandRunner().which('bwrap') : null;
let tools: IsolationTools | null = null;
if (bwrap) tools = await probeIsolation({ platform: 'linux', which: async () => bwrap, works: commandWorks });

const SANDBOXED_HOST = fileURLToPath(new URL('./fixtures/sandboxed-host.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** No event exists for the death of a process that is not our child: vitest polls, bounded. */
async function allGone(marker: string, timeoutMs = 15_000): Promise<number[]> {
  let left = processesWith(marker);
  await vi.waitUntil(() => (left = processesWith(marker)).length === 0, { timeout: timeoutMs, interval: 100 }).catch(() => undefined);
  return left;
}

function sandboxed() {
  return setup({ isolation: { tools: async () => tools as IsolationTools, extraEnvAllow: () => [], ownConfig: () => false, hidden: [] } });
}

describe.skipIf(!tools || tools.level !== 'bubblewrap')('a sandboxed turn', () => {
  it('cancel stops the runtime inside the sandbox, not only bwrap', async () => {
    const { executor, turnDirs } = sandboxed();
    const marker = `SANDBOX_MARKER_${Date.now()}`;
    const controller = new AbortController();
    let whileRunning: number[] = [];
    const onOutput = (tail: string) => {
      if (!tail.includes('working') || controller.signal.aborted) return;
      whileRunning = processesWith(marker);
      controller.abort();
    };
    const outcome = await executor.execute(request({ FAKE_MODE: 'sleep', [marker]: '1' }, { signal: controller.signal, onOutput }));
    expect(outcome.status).toBe('canceled');
    expect(whileRunning.length).toBeGreaterThanOrEqual(2); // bwrap and the runtime it started
    expect(processesWith(marker)).toEqual([]);
    expect(turnDirs()).toEqual([]);
  });

  it('ps shows bwrap and the runtime, never the prompt', async () => {
    const { executor } = sandboxed();
    const prompt = `SECRET-PLAN-${Date.now()}`;
    let inPs: boolean | null = null;
    const outcome = await executor.execute(
      request({ FAKE_MODE: 'json' }, { prompt, onSpawn: () => (inPs = execFileSync('ps', ['-eo', 'args']).toString().includes(prompt)) }),
    );
    expect(outcome.status).toBe('succeeded');
    expect(inPs).toBe(false);
  });

  it('kill -9 of the host: bubblewrap, with no launcher around it, takes the whole turn down (an escaped grandchild too)', async () => {
    const marker = `SANDBOX_KILL9_${Date.now()}`;
    const host = spawn(process.execPath, ['--import', 'tsx', SANDBOXED_HOST, path.join(tempDir('kill9'), 'runtime'), marker], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => host.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: host.stdout! }).on('line', (line) => line === 'running' && resolve());
      host.once('exit', (code) => reject(new Error(`the host exited early (${code})`)));
    });
    const running = processesWith(marker);
    // bwrap (outside and as the namespace's init), the runtime, its grandchild: no Node launcher among them.
    const commands = running.map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0'));
    expect(commands.filter((argv) => argv.includes('-e') && argv.some((a) => a.includes('lifeline'))).length).toBe(0);
    expect(commands.filter((argv) => path.basename(argv[0] ?? '') === 'bwrap').length).toBeGreaterThanOrEqual(1);
    expect(running.length).toBeGreaterThanOrEqual(3);
    host.kill('SIGKILL');
    await exited;
    expect(await allGone(marker)).toEqual([]);
  }, 30_000);
});
