import { describe, expect, it } from 'vitest';
import { deriveStatus, type StatusInputs } from '../../main/core/planes/rost/runner-status';
import { duration, statusLine, trayIconFor } from '../../shared/status';
import { exitLine, turnLine } from '../../main/headless/terminal-reporter';

const base: StatusInputs = {
  paired: true,
  pairing: null,
  revoked: false,
  problem: null,
  offline: null,
  paused: null,
  draining: false,
  active: 0,
  max: 2,
  connected: true,
};
const at = (hh: number, mm: number) => new Date(2026, 11, 2, hh, mm).getTime();

describe('status lines', () => {
  it('a pause says who paused and when, and when it resumes', () => {
    const status = deriveStatus({ ...base, paused: { until: at(14, 32), at: at(14, 2), by: 'you', note: 'deploy' } });
    expect(statusLine(status)).toBe('Paused by you at 14:02 · resumes 14:32');
    expect(status.reason).toBe('Not taking new work. Note: deploy');
    expect(statusLine(deriveStatus({ ...base, paused: { until: null, at: at(9, 5), by: 'you', note: null } }))).toBe('Paused by you at 09:05');
  });

  it('a quit says what it waits for and how long, then that it cancels', () => {
    const now = at(10, 0);
    const waiting = deriveStatus({ ...base, active: 1, stopping: { deadline: now + 5 * 60_000, mode: 'after-turns' } });
    expect(statusLine(waiting, now)).toBe('Stopping: waiting for 1 turn (up to 5 min)');
    expect(statusLine(deriveStatus({ ...base, active: 2, stopping: { deadline: now, mode: 'now' } }), now)).toBe('Stopping now: canceling 2 turns');
  });

  it('no ready runtime is said in the reason, and the idle is amber (held), not the green one', () => {
    const status = deriveStatus({ ...base, notReady: 'Claude Code: installed, not signed in — run `claude` and sign in' });
    expect(status).toEqual({
      state: 'idle',
      held: 'Claude Code: installed, not signed in — run `claude` and sign in',
      reason: 'Not taking work: Claude Code: installed, not signed in — run `claude` and sign in.',
    });
    expect(statusLine(status)).toBe('Idle · not claiming');
    expect(trayIconFor(status)).toBe('paused');
    const ready = deriveStatus(base);
    expect([statusLine(ready), trayIconFor(ready)]).toEqual(['Idle', 'idle']);
  });

  it('durations and terminal lines', () => {
    expect([duration(400), duration(59_000), duration(5 * 60_000), duration(130 * 60_000)]).toEqual(['1 s', '59 s', '5 min', '2 h 10 min']);
    expect(exitLine({ kind: 'stopped', finished: 1, canceled: 1, undelivered: 2 })).toBe(
      'Stopped: 1 turn finished, 1 turn canceled; 2 results not delivered yet (sent on the next start).',
    );
    expect(
      turnLine({
        id: 'u-1',
        kind: 'turn_execution',
        runtime: 'codex',
        seat: null,
        buildRequestId: null,
        startedAt: '2026-12-02T10:00:00.000Z',
        endedAt: '2026-12-02T10:00:42.000Z',
        phase: 'failed',
        pid: null,
        tokens: null,
        costUsd: null,
        outputTail: '',
        summary: null,
        lease: null,
        reason: 'exit 3',
      }),
    ).toBe('Turn failed in 42 s: unit u-1 (codex) — exit 3');
  });
});
