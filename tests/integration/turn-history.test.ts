import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState } from '../../shared/runner';
import type { TurnsPage, TurnView } from '../../shared/turns';
import { startHarness, type Harness } from './core-harness';

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** A host paired with the emulator, its fake runtimes ready. */
async function paired(): Promise<Harness> {
  const harness = await startHarness({ core: { runtimeBinaries: { claude: FAKE, codex: FAKE } }, emulator: { config: { longPollMaxMs: 1000 } } });
  const pairing = await harness.invoke<PairingState>('pairing:start');
  if (pairing.phase !== 'waiting') throw new Error('not waiting');
  harness.emu.admin.approvePairing(pairing.userCode);
  await harness.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true);
  return harness;
}

describe('the turn history survives a restart', () => {
  it('shows the finished turns after a restart, and a damaged row does not cost the others', async () => {
    h = await paired();
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
    // Every line of one row edited by hand into nonsense.
    const file = path.join(h.dataDir, 'turn-history.jsonl');
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => (line.includes(bad.id) ? JSON.stringify({ op: 'add', turn: { id: 42 } }) : line));
    writeFileSync(file, `${lines.join('\n')}\n`);
    await h.restart({ runtimeBinaries: { claude: FAKE, codex: FAKE } });
    expect((await h.invoke<TurnsPage>('turns:list')).history.map((t) => t.id)).toEqual([ok.id]);
  });

  it('converts a version-1 history once and keeps the old file; the first heartbeat does not wait for the history', async () => {
    h = await paired();
    const ok = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:hello' });
    await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === ok.id));
    const before = await h.invoke<TurnsPage>('turns:list');
    const detail = await h.invoke<TurnView>('turns:detail', { id: ok.id });
    await h.core.shutdown(0);

    // An older build's file, and no log yet: converted at start, the old file left for that build.
    const log = path.join(h.dataDir, 'turn-history.jsonl');
    const legacy = path.join(h.dataDir, 'turn-history.json');
    const logText = readFileSync(log, 'utf8');
    rmSync(log);
    writeFileSync(legacy, JSON.stringify({ version: 1, turns: [detail] }));
    await h.restart({ runtimeBinaries: { claude: FAKE, codex: FAKE } });
    expect((await h.invoke<TurnsPage>('turns:list')).history).toEqual(before.history);
    expect(await h.invoke<TurnView>('turns:detail', { id: ok.id })).toEqual(detail);
    expect(existsSync(legacy)).toBe(true);
    await h.core.shutdown(0);

    // The log held back (a pipe no one writes yet): the runner still beats, and the list waits for the rows.
    rmSync(log);
    execFileSync('mkfifo', [log]);
    await h.restart({ runtimeBinaries: { claude: FAKE, codex: FAKE } });
    let listed = false;
    const list = h.invoke<TurnsPage>('turns:list').then((page) => {
      listed = true;
      return page;
    });
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null);
    expect(listed).toBe(false);
    writeFileSync(log, logText);
    expect((await list).history.map((t) => t.id)).toEqual([ok.id]);
    // No pipe left behind for the shutdown's flush.
    rmSync(log);
  });
});
