import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState } from '../../shared/runner';
import { TerminalReporter } from '../../main/headless/terminal-reporter';
import { watchModeLine } from '../../main/headless/seed-lines';
import { startHarness, type Harness } from '../integration/core-harness';

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('the headless terminal, as journalctl shows it', () => {
  it('the exit line counts the turns finished over the whole run, not only those the quit drained', () => {
    const lines: string[] = [];
    const reporter = new TerminalReporter({ write: (text: string) => lines.push(text) });
    const turn = {
      id: 'sechroom:lse_1',
      phase: 'succeeded',
      runtime: 'codex',
      startedAt: '2026-12-07T10:00:00Z',
      endedAt: '2026-12-07T10:00:03Z',
      reason: null,
    };
    reporter.onEvents([{ event: 'turns:update', payload: { finished: [turn], active: [] } } as never]);
    expect(reporter.exitLine({ kind: 'stopped', finished: 0, canceled: 0, undelivered: 0 })).toBe('Stopped: 1 turn finished; every result delivered.');
  });

  it('a turn the quit canceled is not counted finished, even when its plane reports it failed', () => {
    const reporter = new TerminalReporter({ write: () => undefined });
    const turn = (id: string, phase: string) => ({
      id,
      phase,
      runtime: 'codex',
      startedAt: '2026-12-07T10:00:00Z',
      endedAt: '2026-12-07T10:00:03Z',
      reason: null,
    });
    reporter.onEvents([{ event: 'turns:update', payload: { finished: [turn('sechroom:lse_1', 'succeeded')], active: [] } } as never]);
    reporter.quitBegan();
    // A turn that ends as failed while the quit stops it is the quit's, not a finished one.
    reporter.onEvents([{ event: 'turns:update', payload: { finished: [turn('sechroom:lse_2', 'failed')], active: [] } } as never]);
    expect(reporter.exitLine({ kind: 'stopped', finished: 0, canceled: 1, undelivered: 0 })).toBe(
      'Stopped: 1 turn finished, 1 turn canceled; every result delivered.',
    );
  });

  it('a pairing that cannot reach the control plane says so, with the next try, once per attempt', () => {
    const lines: string[] = [];
    const now = Date.parse('2026-12-07T10:00:00Z');
    const reporter = new TerminalReporter({ write: (text: string) => lines.push(text) }, null, () => now);
    const retrying = (attempts: number): PairingState => ({
      phase: 'retrying',
      what: 'pairing',
      lastError: 'connect ECONNREFUSED 127.0.0.1:7457',
      nextAttemptAt: new Date(now + 4000).toISOString(),
      attempts,
    });
    const snapshot = (pairing: PairingState) => ({ event: 'runner:snapshot', payload: { pairing } }) as never;
    reporter.onEvents([snapshot(retrying(1)), snapshot(retrying(1)), snapshot(retrying(2))]);
    expect(lines).toEqual([
      'Pairing could not reach the control plane (connect ECONNREFUSED 127.0.0.1:7457); trying again in 4 s.\n',
      'Pairing could not reach the control plane (connect ECONNREFUSED 127.0.0.1:7457); trying again in 4 s.\n',
    ]);
  });

  it('on the Sechroom plane the Mode line names the codex the executor drives, not Rost’s runtime detection', async () => {
    // No runtime detected for Rost: its Mode line would say none is ready.
    h = await startHarness({ core: { runtimeBinaries: { claude: '/nonexistent/claude', codex: '/nonexistent/codex' } } });
    await h.core.capabilities.get();
    const lines: string[] = [];
    const off = watchModeLine(h.core, {}, { write: (text: string) => lines.push(text.trim()) }, { sechroom: true, codexNamed: true });
    off();
    expect(lines).toEqual([
      'Mode: runs work on this machine (the default; RUNNER_EXECUTE=0 or --no-execute turns it off) with codex (the Sechroom executor drives codex app-server).',
    ]);
  });

  it('one line per status change, one per outage (not per retry), one per finished turn', async () => {
    // The outage is played on the heartbeat route alone: a server whose held claim carries no heartbeat, so beats go there.
    h = await startHarness({
      core: { runtimeBinaries: { claude: FAKE, codex: FAKE } },
      emulator: { config: { longPollMaxMs: 1000, claimCarriesHeartbeat: false } },
    });
    const lines: string[] = [];
    const reporter = new TerminalReporter({ write: (text: string) => lines.push(...text.split('\n').filter(Boolean)) });
    h.core.host.subscribe((batch) => reporter.onEvents(batch));
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(pairing.userCode);
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null && s.runtimes?.claude.installed === true);

    // An outage of three failed heartbeats, each with its own retry time.
    h.emu.admin.addFault({ route: '/api/runner/heartbeat', error: { rate: 1, status: 503 }, remaining: 3 });
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.consecutiveFailures === 3);
    const outageAt = h.events.length;
    await h.waitForEvent('runner:status', (s) => s.state === 'idle' && h!.events.findIndex((e) => e.event === 'runner:status' && e.payload === s) > outageAt);
    const offlineStatuses = h.events.filter((e) => e.event === 'runner:status' && e.payload.state === 'offline');
    expect(offlineStatuses.length).toBeGreaterThan(1);

    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:hello' });
    await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === unit.id));

    expect(lines.filter((l) => l.startsWith('Status: Offline'))).toHaveLength(1);
    expect(lines.some((l) => /^Status: Idle — .*\(back after \d+ s offline\)$/.test(l))).toBe(true);
    expect(lines.filter((l) => l.startsWith('Turn '))).toEqual([expect.stringMatching(new RegExp(`^Turn succeeded in \\d+ s: unit ${unit.id} \\(claude\\)$`))]);
    // No line repeats the one before it.
    expect(lines.filter((l, i) => i > 0 && l === lines[i - 1])).toEqual([]);
  }, 30_000);
});
