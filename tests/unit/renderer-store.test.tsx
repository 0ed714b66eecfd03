// @vitest-environment happy-dom
import { act, cleanup, render } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HostEvent } from '../../shared/contract';
import type { RunnerSnapshot } from '../../shared/runner';
import { defaultSettings } from '../../shared/settings';
import { SAMPLE_WINDOW, type CapacitySample } from '../../shared/telemetry';
import { HISTORY_LIMIT, type TurnView } from '../../shared/turns';
import { applyEvents, initialHostState, reduceEvents, useHostStore } from '../../renderer/src/store';
import { changedKeys, checkField, draftFrom, patchOf } from '../../renderer/src/views/settings/settings-form';

function snapshot(extra: Partial<RunnerSnapshot> = {}): RunnerSnapshot {
  return {
    status: { state: 'idle', reason: 'Connected and waiting for work.' },
    pairing: null,
    identity: { runnerId: 'r-1', tenantId: 't-1', name: 'studio', controlPlane: 'http://127.0.0.1:7457', pairedAt: '2026-01-01T00:00:00.000Z' },
    secretStorage: { backend: 'keychain', warning: null, problem: null },
    heartbeat: { lastOkAt: '2026-01-01T00:00:00.000Z', nextAt: null, consecutiveFailures: 0, longPoll: true, intervalMs: 30_000 },
    runtimes: { claude: { installed: true, version: '2.1.197' }, codex: { installed: false } },
    modelAccount: { alias: 'default', state: 'unknown' },
    sessions: { active: 0, max: 2 },
    paused: null,
    ...extra,
  };
}

function turn(id: string, phase: TurnView['phase'] = 'running'): TurnView {
  return {
    id,
    kind: 'turn_execution',
    runtime: 'claude',
    seat: { id: 's', name: 'Builder' },
    buildRequestId: null,
    startedAt: '2026-01-01T00:00:00.000Z',
    endedAt: phase === 'running' ? null : '2026-01-01T00:01:00.000Z',
    phase,
    pid: null,
    tokens: null,
    costUsd: null,
    outputTail: '',
    summary: null,
    lease: 'active',
    reason: null,
  };
}

const sample = (t: number): CapacitySample => ({ t, cpuPercent: 5, memTotalBytes: 100, memFreeBytes: 50, rssBytes: 10, activeSessions: 0, maxSessions: 1 });

beforeEach(() => useHostStore.setState(initialHostState, true));
afterEach(cleanup);

describe('the window store', () => {
  it('answers an event batch that changes nothing with the same state object', () => {
    const state = reduceEvents(initialHostState, [{ event: 'runner:snapshot', payload: snapshot() }]);
    expect(reduceEvents(state, [{ event: 'runner:snapshot', payload: snapshot() }])).toBe(state);
    expect(reduceEvents(state, [{ event: 'runner:status', payload: snapshot().status }])).toBe(state);
    expect(reduceEvents(state, [{ event: 'log:entries', payload: [] }])).toBe(state);
  });

  it('keeps the identity of the parts of a snapshot that did not change (a heartbeat changes one field)', () => {
    const first = reduceEvents(initialHostState, [{ event: 'runner:snapshot', payload: snapshot() }]);
    const beat = snapshot({ heartbeat: { ...snapshot().heartbeat, lastOkAt: '2026-01-01T00:00:30.000Z' } });
    const second = reduceEvents(first, [{ event: 'runner:snapshot', payload: beat }]);
    expect(second).not.toBe(first);
    expect(second.runner.snapshot?.identity).toBe(first.runner.snapshot?.identity);
    expect(second.runner.snapshot?.runtimes).toBe(first.runner.snapshot?.runtimes);
    expect(second.runner.status).toBe(first.runner.status);
    expect(second.runner.snapshot?.heartbeat).not.toBe(first.runner.snapshot?.heartbeat);
  });

  it('applies turns updates: upserts keep order, finished turns move to history once, newest first, capped', () => {
    let state = reduceEvents(initialHostState, [{ event: 'turns:update', payload: { active: [turn('a'), turn('b')], removed: [], finished: [] } }]);
    state = reduceEvents(state, [{ event: 'turns:update', payload: { active: [{ ...turn('a'), outputTail: 'hi' }], removed: [], finished: [] } }]);
    expect(state.turns.active.map((t) => [t.id, t.outputTail])).toEqual([
      ['a', 'hi'],
      ['b', ''],
    ]);
    const doneA = turn('a', 'succeeded');
    const doneB = turn('b', 'failed');
    state = reduceEvents(state, [{ event: 'turns:update', payload: { active: [], removed: ['a', 'b'], finished: [doneA, doneB] } }]);
    expect(state.turns.active).toEqual([]);
    expect(state.turns.history.map((t) => t.id)).toEqual(['b', 'a']);
    // The same finished turn again (a turns:list answer raced the event) is not doubled.
    state = reduceEvents(state, [{ event: 'turns:update', payload: { active: [], removed: [], finished: [doneA] } }]);
    expect(state.turns.history.map((t) => t.id)).toEqual(['a', 'b']);
    const many = Array.from({ length: HISTORY_LIMIT + 5 }, (_, i) => turn(`t${i}`, 'succeeded'));
    state = reduceEvents(state, [{ event: 'turns:update', payload: { active: [], removed: [], finished: many } }]);
    expect(state.turns.history).toHaveLength(HISTORY_LIMIT);
    expect(state.turns.history[0]?.id).toBe(`t${HISTORY_LIMIT + 4}`);
  });

  it('keeps the last hour of telemetry, in order, without repeats', () => {
    let state = initialHostState;
    for (let i = 0; i < SAMPLE_WINDOW + 10; i++) state = reduceEvents(state, [{ event: 'telemetry:sample', payload: sample(i) }]);
    expect(state.telemetry.samples).toHaveLength(SAMPLE_WINDOW);
    expect(state.telemetry.samples.at(-1)?.t).toBe(SAMPLE_WINDOW + 9);
    expect(reduceEvents(state, [{ event: 'telemetry:sample', payload: sample(5) }])).toBe(state);
  });

  it('follows settings:changed', () => {
    const view = { settings: defaultSettings('h'), overridden: [], warnings: [] };
    const state = reduceEvents(initialHostState, [{ event: 'settings:changed', payload: view }]);
    expect(state.settings).toBe(view);
    expect(reduceEvents(state, [{ event: 'settings:changed', payload: structuredClone(view) }])).toBe(state);
  });

  it('re-renders a component only when what it selected changed', () => {
    let renders = 0;
    function RunnerName() {
      renders++;
      const name = useHostStore((s) => s.runner.snapshot?.identity?.name ?? null);
      return <span>{name}</span>;
    }
    const { container } = render(<RunnerName />);
    const send = (events: HostEvent[]) => act(() => applyEvents(events));
    send([{ event: 'runner:snapshot', payload: snapshot() }]);
    const after = renders;
    expect(container.textContent).toBe('studio');
    for (let i = 1; i <= 10; i++) {
      send([
        {
          event: 'runner:snapshot',
          payload: snapshot({ heartbeat: { ...snapshot().heartbeat, lastOkAt: `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z` } }),
        },
        { event: 'telemetry:sample', payload: sample(i) },
        { event: 'log:entries', payload: [{ seq: i, time: '2026-01-01T00:00:00.000Z', level: 'info', msg: 'beat' }] },
      ]);
    }
    expect(renders).toBe(after);
  });
});

describe('the settings form', () => {
  const settings = defaultSettings('h');

  it('checks fields with the shared messages and finds what changed', () => {
    const draft = { ...draftFrom(settings), heartbeatMs: '500', runnerName: 'new-name' };
    expect(checkField('heartbeatMs', '500')).toEqual({
      ok: false,
      error: { message: 'Heartbeat interval (ms) must be an integer >= 1000.', field: 'heartbeatMs' },
    });
    expect(checkField('heartbeatMs', '')).toMatchObject({ ok: false });
    expect(changedKeys(draft, settings).sort()).toEqual(['heartbeatMs', 'runnerName']);
    expect(changedKeys(draftFrom(settings), settings)).toEqual([]);
  });

  it('sends numbers as numbers and a cleared optional field as null', () => {
    const withTenant = { ...settings, expectedTenantId: 'acme' };
    const draft = { ...draftFrom(withTenant), expectedTenantId: '', maxSessions: '3' };
    const keys = changedKeys(draft, withTenant);
    expect(patchOf(draft, keys)).toEqual({ expectedTenantId: null, maxSessions: 3 });
  });
});
