import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState } from '../../shared/runner';
import type { TurnsPage } from '../../shared/turns';
import { startHarness, type Harness } from './core-harness';

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('the turn history survives a restart', () => {
  it('shows the finished turns after a restart, and a damaged row does not cost the others', async () => {
    h = await startHarness({ core: { runtimeBinaries: { claude: FAKE, codex: FAKE } }, emulator: { config: { longPollMaxMs: 1000 } } });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(pairing.userCode);
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true);
    const ok = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:hello' });
    await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === ok.id));
    const bad = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:crash' });
    await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === bad.id));
    const before = await h.invoke<TurnsPage>('turns:list');
    expect(before.history.map((t) => t.id)).toEqual([bad.id, ok.id]);

    await h.restart({ runtimeBinaries: { claude: FAKE, codex: FAKE } });
    const after = await h.invoke<TurnsPage>('turns:list');
    expect(after.history).toEqual(before.history);
    expect(after.history[1]).toMatchObject({ id: ok.id, phase: 'succeeded', runtime: 'claude' });

    // One row edited by hand into nonsense: the other row is still shown.
    await h.core.shutdown(0);
    const file = path.join(h.dataDir, 'turn-history.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { version: 1; turns: unknown[] };
    doc.turns[0] = { id: 42 };
    writeFileSync(file, JSON.stringify(doc));
    await h.restart({ runtimeBinaries: { claude: FAKE, codex: FAKE } });
    expect((await h.invoke<TurnsPage>('turns:list')).history.map((t) => t.id)).toEqual([ok.id]);
  });
});
