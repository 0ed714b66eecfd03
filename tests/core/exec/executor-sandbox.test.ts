import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandWorks, probeIsolation, type IsolationTools } from '../../../main/core/exec/isolation';
import { createCommandRunner } from '../../../main/core/runner/process-runner';
import { request, setup } from './exec-helpers';

// The process tree of a sandboxed turn: bubblewrap starts the runtime in its own session
// and pid namespace, so stopping a turn must reach past bwrap itself.

/** Pids of live processes whose environment holds `marker` (we may read them: same user or root). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(marker)) found.push(Number(name));
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

const linux = process.platform === 'linux';
const bwrap = linux ? await createCommandRunner().which('bwrap') : null;
let tools: IsolationTools | null = null;
if (bwrap) tools = await probeIsolation({ platform: 'linux', which: async () => bwrap, works: commandWorks });

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
});
