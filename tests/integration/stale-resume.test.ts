import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState } from '../../shared/runner';
import { startHarness, type Harness } from './core-harness';

const STALE = fileURLToPath(new URL('../fixtures/stale-resume-runtime.mjs', import.meta.url));

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('a --resume id claude does not know', () => {
  it('is dropped and the turn runs once more as a fresh session', async () => {
    h = await startHarness({ emulator: { config: { longPollMaxMs: 1000 } }, core: { runtimeBinaries: { claude: STALE, codex: STALE } } });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(pairing.userCode);
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true);
    const conversation = { seat: { id: 'seat-1', name: 'Builder' }, user_id: 'user-1', session_id: 'session-1' };

    // The first turn of the conversation leaves a session id behind…
    const first = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:one', ...conversation });
    await h.emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === first.id, { timeoutMs: 10_000, since: 0 });
    // …which claude no longer knows when the next turn resumes it.
    const second = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:two', ...conversation });
    await h.emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === second.id, { timeoutMs: 10_000, since: 0 });
    expect(h.emu.admin.listResults({ unit_id: second.id })).toMatchObject([{ status: 'succeeded', summary: expect.stringContaining('two') }]);
    const logs = h.events.flatMap((e) => (e.event === 'log:entries' ? e.payload : []));
    expect(logs.filter((l) => l.msg === 'claude does not know the resume id; running the turn as a fresh session')).toHaveLength(1);
  });
});
