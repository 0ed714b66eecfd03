import { describe, expect, it } from 'vitest';
import { deriveStatus, type StatusInputs } from '../../../../main/core/planes/rost/runner-status';
import type { PairingState } from '../../../../shared/runner';

// The status line everything shows (tray icon, window, headless) comes from one pure
// function. Several of its facts can hold at once; these tests pin which one wins for
// every pair, so a new state cannot silently reorder them.

const NOW = Date.parse('2026-12-01T12:00:00.000Z');

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

const waiting: PairingState = {
  phase: 'waiting',
  userCode: 'BCDF-GHJK',
  verificationUri: 'http://127.0.0.1:7457/device',
  verificationUriComplete: null,
  expiresAt: new Date(NOW + 600_000).toISOString(),
  intervalSeconds: 5,
  trouble: null,
};

/** Facts of a paired runner that can hold together, highest precedence first. */
const PAIRED: ReadonlyArray<[name: string, facts: Partial<StatusInputs>, state: string]> = [
  ['a problem', { problem: 'The secret store cannot be read.' }, 'error'],
  ['a quit waiting for turns', { stopping: { deadline: NOW + 300_000, mode: 'after-turns' } }, 'draining'],
  ['draining', { draining: true }, 'draining'],
  [
    'a data folder that cannot be written',
    { storage: 'Cannot write to /data/running: no space left on device (ENOSPC) — taking no work until it can' },
    'error',
  ],
  ['offline', { offline: { retryAt: NOW + 5_000, message: 'Cannot reach the control plane.' } }, 'offline'],
  ['paused', { paused: { until: null } }, 'paused'],
  ['running turns', { active: 1 }, 'working'],
  ['no runtime ready', { notReady: 'Claude Code: installed, not signed in' }, 'idle'],
  ['not connected yet', { connected: false }, 'idle'],
  ['heartbeat-only mode', { heartbeatOnly: true }, 'idle'],
];

/** Pairs where the lower fact changes the outcome on purpose (tested on their own below). */
const EXCEPTIONS = new Set(['offline|running turns']);

/** Facts of an unpaired runner, highest precedence first. */
const UNPAIRED: ReadonlyArray<[name: string, facts: Partial<StatusInputs>, state: string]> = [
  ['pairing in progress', { pairing: waiting }, 'pairing'],
  ['revoked', { revoked: true }, 'revoked'],
  ['a problem', { problem: 'No secure place to keep the runner secret.' }, 'error'],
];

const pairs = <T>(list: readonly T[]): Array<[T, T]> => list.flatMap((a, i) => list.slice(i + 1).map((b): [T, T] => [a, b]));

describe('deriveStatus precedence', () => {
  it.each(PAIRED)('paired, only %s: %s', (_name, facts, state) => {
    expect(deriveStatus({ ...base, ...facts }).state).toBe(state);
  });

  it.each(
    pairs(PAIRED)
      .filter(([a, b]) => !EXCEPTIONS.has(`${a[0]}|${b[0]}`))
      .map(([a, b]) => [a[0], b[0], a, b] as const),
  )('paired, %s beats %s', (_a, _b, [, higher, winner], [, lower]) => {
    expect(deriveStatus({ ...base, ...lower, ...higher }).state).toBe(winner);
  });

  it('never hides running turns behind a control-plane problem: working, with the fault and the next try', () => {
    const status = deriveStatus({ ...base, active: 1, offline: { retryAt: NOW + 5_000, message: 'Cannot reach the control plane.', fault: 'unreachable' } });
    expect(status).toMatchObject({ state: 'working', active: 1, fault: 'unreachable', retryAt: new Date(NOW + 5_000).toISOString() });
    expect(status.reason).toContain('Running turns go on');
  });

  it.each(UNPAIRED)('unpaired, only %s: %s', (_name, facts, state) => {
    expect(deriveStatus({ ...base, paired: false, ...facts }).state).toBe(state);
  });

  it.each(pairs(UNPAIRED).map(([a, b]) => [a[0], b[0], a, b] as const))('unpaired, %s beats %s', (_a, _b, [, higher, winner], [, lower]) => {
    expect(deriveStatus({ ...base, paired: false, ...lower, ...higher }).state).toBe(winner);
  });

  it('unpaired with nothing else going on is unpaired; a finished or failed pairing does not count as pairing', () => {
    expect(deriveStatus({ ...base, paired: false }).state).toBe('unpaired');
    expect(deriveStatus({ ...base, paired: false, pairing: { phase: 'approved', runnerName: 'ada' } }).state).toBe('unpaired');
    for (const pairing of [{ phase: 'failed', message: 'denied' }, { phase: 'expired' }, { phase: 'canceled' }, { phase: 'denied' }] satisfies PairingState[]) {
      expect(deriveStatus({ ...base, paired: false, pairing }).state).toBe('unpaired');
    }
    expect(deriveStatus({ ...base, paired: false, pairing: { phase: 'starting' } }).state).toBe('pairing');
  });

  it('a paired runner ignores a leftover pairing flow and the revoked flag of an earlier pairing', () => {
    expect(deriveStatus({ ...base, pairing: waiting, revoked: true }).state).toBe('idle');
  });

  it('every unpaired state beats every paired-only fact (which cannot apply without a pairing)', () => {
    const allPaired = Object.assign({}, ...PAIRED.slice(1).map(([, f]) => f)) as Partial<StatusInputs>;
    expect(deriveStatus({ ...base, ...allPaired, paired: false }).state).toBe('unpaired');
    expect(deriveStatus({ ...base, ...allPaired, paired: false, revoked: true }).state).toBe('revoked');
  });
});

describe('deriveStatus details', () => {
  it('draining counts the turns still running', () => {
    expect(deriveStatus({ ...base, draining: true, active: 3 })).toMatchObject({ state: 'draining', remaining: 3 });
  });

  it('paused says whether running turns will finish, and until when', () => {
    expect(deriveStatus({ ...base, paused: { until: null } })).toEqual({ state: 'paused', until: null, reason: 'Not taking new work.' });
    expect(deriveStatus({ ...base, paused: { until: NOW + 60_000 }, active: 1 })).toEqual({
      state: 'paused',
      until: '2026-12-01T12:01:00.000Z',
      reason: 'Not taking new work; 1 running turn will finish.',
    });
    expect(deriveStatus({ ...base, paused: { until: null }, active: 2 }).reason).toBe('Not taking new work; 2 running turns will finish.');
  });

  it('offline carries the retry time and the failure', () => {
    expect(deriveStatus({ ...base, offline: { retryAt: NOW + 5_000, message: 'Cannot reach the control plane.' } })).toEqual({
      state: 'offline',
      retryAt: '2026-12-01T12:00:05.000Z',
      reason: 'Cannot reach the control plane.',
    });
  });

  it('working reports turns against the limit; idle says whether it is connected', () => {
    expect(deriveStatus({ ...base, active: 1, max: 4 })).toEqual({ state: 'working', active: 1, limit: 4, reason: 'Running 1 of up to 4 turns.' });
    expect(deriveStatus({ ...base, connected: false }).reason).toBe('Connecting to the control plane…');
    expect(deriveStatus(base).reason).toBe('Connected and waiting for work.');
  });

  it('a data folder that cannot be written is red and names the path and the error, running turns or not', () => {
    const storage = 'Cannot write to /data/running: no space left on device (ENOSPC) — taking no work until it can';
    expect(deriveStatus({ ...base, storage })).toEqual({ state: 'error', reason: storage });
    expect(deriveStatus({ ...base, storage, active: 1 })).toEqual({ state: 'error', reason: storage });
  });

  it('a problem is shown as it is', () => {
    expect(deriveStatus({ ...base, problem: 'The secret store cannot be read.' })).toEqual({ state: 'error', reason: 'The secret store cannot be read.' });
  });

  it('an idle profile held by a lending term says why in `held`; a running turn keeps it working', () => {
    const reason = 'Outside your lending hours — resumes Mon 09:00';
    expect(deriveStatus({ ...base, lendingHeld: reason })).toEqual({ state: 'idle', held: reason, reason: `Not taking work: ${reason}.` });
    expect(deriveStatus({ ...base, active: 1, lendingHeld: reason }).state).toBe('working');
  });
});
