import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { commandWorks, probeIsolation, type IsolationTools } from '../../../main/core/exec/isolation';
import { createCommandRunner } from '../../../main/core/exec/process-runner';
import { MCP_TOKEN, listTurnDirs, request, setup } from './exec-helpers';

// A sandbox started ahead for the next turn (warm-sandbox.ts): bubblewrap and the egress
// bridge already running in a spare turn folder, handed the next turn's command on fd 3.

const bwrap = process.platform === 'linux' ? await createCommandRunner().which('bwrap') : null;
const tools: IsolationTools | null = bwrap ? await probeIsolation({ platform: 'linux', which: async () => bwrap, works: commandWorks }) : null;

/** Live processes whose command line names `text` (a spare's folder is on bubblewrap's). */
function processesNaming(text: string): { pid: number; environ: string }[] {
  const found: { pid: number; environ: string }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'latin1').includes(text))
        found.push({ pid: Number(name), environ: readFileSync(`/proc/${name}/environ`, 'latin1') });
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

function sandboxed() {
  return setup({ isolation: { tools: async () => tools as IsolationTools, extraEnvAllow: () => [], ownConfig: () => false, hidden: [] } });
}

const startedAhead = (entries: { msg: string; data?: Record<string, unknown> | undefined }[]) =>
  entries.filter((e) => e.msg === 'runtime started').map((e) => e.data?.startedAhead);

/** No event exists for a process that is not our child starting or ending: vitest polls, bounded. */
const until = (check: () => boolean) => vi.waitUntil(check, { timeout: 15_000, interval: 50 });

describe.skipIf(!tools || tools.level !== 'bubblewrap' || tools.sharedNetworkOnly)('a sandbox started ahead', () => {
  it('serves the next turn of the same shape once, holds nothing of a turn before, and ends at stop', async () => {
    const { executor, workRoot, logging, turnDirs } = sandboxed();
    const marker = `WARM_MARKER_${Date.now()}`;
    const env = { FAKE_MODE: 'json', FAKE_RESULT: 'turn done', [marker]: '1' };
    expect((await executor.execute(request(env))).status).toBe('succeeded');
    await until(() => listTurnDirs(workRoot, true).length === 1 && processesNaming(listTurnDirs(workRoot, true)[0] ?? '-').length >= 2);
    const spareDir = listTurnDirs(workRoot, true)[0] as string;
    // bubblewrap and the bridge wait with the script node's variables only: no turn's environment, no token.
    for (const p of processesNaming(spareDir)) {
      expect(p.environ).not.toContain(marker);
      expect(p.environ).not.toContain(MCP_TOKEN);
    }

    const second = await executor.execute(request(env));
    expect(second.status).toBe('succeeded');
    expect(second.summary).toContain('turn done');
    expect(startedAhead(logging.entries)).toEqual([false, true]);
    // The spare went with the turn it served; a new one is started for the next.
    expect(listTurnDirs(workRoot, true)).not.toContain(spareDir);
    expect(turnDirs()).toEqual([]);
    await until(() => listTurnDirs(workRoot, true).length === 1);

    await executor.stop();
    expect(listTurnDirs(workRoot, true)).toEqual([]);
    expect(processesNaming(workRoot)).toEqual([]);
  }, 60_000);

  it('a turn of another shape starts its own sandbox and the spare is ended', async () => {
    const { executor, workRoot, logging } = sandboxed();
    expect((await executor.execute(request({ FAKE_MODE: 'json', FAKE_RESULT: 'first' }))).status).toBe('succeeded');
    await until(() => listTurnDirs(workRoot, true).length === 1);
    const spareDir = listTurnDirs(workRoot, true)[0] as string;
    const other = await executor.execute(request({ FAKE_MODE: 'json', FAKE_RESULT: 'other' }));
    expect(other.summary).toContain('other');
    expect(startedAhead(logging.entries)).toEqual([false, false]);
    await until(() => !listTurnDirs(workRoot, true).includes(spareDir) && processesNaming(spareDir).length === 0);
  }, 60_000);
});
