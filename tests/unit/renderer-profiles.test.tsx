// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HostEvent } from '../../shared/contract';
import type { ProfileSummary } from '../../shared/profiles';
import type { RunnerSnapshot } from '../../shared/runner';
import type { Bridge } from '../../renderer/src/bridge';
import { setBridge } from '../../renderer/src/bridge/instance';
import { fakeBridge } from '../helpers/fake-bridge';
import { applyEvents, initialHostState, useHostStore } from '../../renderer/src/store';
import { effectiveProfile, scopedInput } from '../../renderer/src/store/profiles-slice';
import { loadSnapshot, selectProfile } from '../../renderer/src/store/sync';
import { ProfileSwitcher } from '../../renderer/src/views/profiles/profile-switcher';

const summary = (id: string, name: string, status: ProfileSummary['status']): ProfileSummary => ({
  id,
  name,
  connector: 'rost',
  controlPlaneUrl: `https://${id}.forge.example`,
  status,
  runnerId: status.state === 'unpaired' ? null : `r-${id}`,
  paused: status.state === 'paused',
  active: status.state === 'working' ? status.active : 0,
});

const TWO = [
  summary('default', 'Acme', { state: 'working', reason: 'Running 1 turn.', active: 1, limit: 2 }),
  summary('lab', 'Lab tenant', { state: 'paused', reason: 'Paused by you.', until: null }),
];

function snapshot(profile: string, state: 'idle' | 'paused'): RunnerSnapshot {
  return {
    profile,
    status: state === 'idle' ? { state, reason: `${profile} idle` } : { state, reason: `${profile} paused`, until: null },
    pairing: null,
    identity: { runnerId: `r-${profile}`, tenantId: 't', name: profile, controlPlane: 'https://x.example', pairedAt: '2026-01-01T00:00:00.000Z' },
    secretStorage: { backend: 'keychain', warning: null, problem: null },
    heartbeat: { lastOkAt: null, nextAt: null, consecutiveFailures: 0, longPoll: true, intervalMs: 30_000 },
    runtimes: { claude: { installed: true, version: '2' }, codex: { installed: false } },
    modelAccount: { alias: 'default', state: 'unknown' },
    sessions: { active: 0, max: 2 },
    paused: null,
  };
}

beforeEach(() => useHostStore.setState(initialHostState, true));
afterEach(cleanup);

describe('profiles in the window', () => {
  it('sends a per-profile command to the profile the window shows, and leaves the others alone', () => {
    expect(scopedInput('runner:pause', { minutes: null }, 'lab')).toEqual({ minutes: null, profile: 'lab' });
    expect(scopedInput('runner:resume', undefined, 'lab')).toEqual({ profile: 'lab' });
    expect(scopedInput('settings:update', { profile: 'default', runtime: 'codex' }, 'lab')).toEqual({ profile: 'default', runtime: 'codex' });
    expect(scopedInput('turns:cancel', { id: 'u1' }, 'lab')).toEqual({ id: 'u1' });
    expect(scopedInput('usage:get', undefined, 'lab')).toBeUndefined();
  });

  it('keeps only the shown profile’s status, snapshot and settings from the event stream, and every profile’s summary', () => {
    useHostStore.setState({ profile: 'lab' });
    const events: HostEvent[] = [
      { event: 'runner:snapshot', payload: snapshot('default', 'idle') },
      { event: 'runner:status', payload: { state: 'idle', reason: 'default idle', profile: 'default' } },
      { event: 'profiles:changed', payload: TWO },
    ];
    applyEvents(events);
    expect(useHostStore.getState().runner.snapshot).toBeNull();
    expect(useHostStore.getState().profiles).toEqual(TWO);
    applyEvents([{ event: 'runner:snapshot', payload: snapshot('lab', 'paused') }]);
    expect(useHostStore.getState().runner.status?.reason).toBe('lab paused');
  });

  it('switching drops the last profile’s state at once, then shows the new one’s snapshot and settings', async () => {
    useHostStore.setState({ profile: 'default', profiles: TWO, runner: { status: snapshot('default', 'idle').status, snapshot: snapshot('default', 'idle') } });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { bridge, calls } = fakeBridge((name, input) => {
      const profile = (input as { profile: string }).profile;
      return name === 'runner:snapshot' ? snapshot(profile, 'paused') : { profile, settings: {}, overridden: [], warnings: [] };
    });
    const slow: Bridge = { ...bridge, invoke: async (name, input) => (await gate, bridge.invoke(name, input)) };
    const switching = selectProfile(slow, 'lab');
    // Never a moment of the old profile's state under the new profile's name.
    expect(useHostStore.getState().profile).toBe('lab');
    expect(useHostStore.getState().runner.snapshot).toBeNull();
    release();
    await switching;
    expect(calls.map((c) => c.input)).toEqual([{ profile: 'lab' }, { profile: 'lab' }]);
    expect(useHostStore.getState().runner.snapshot?.profile).toBe('lab');
    expect(useHostStore.getState().settings?.profile).toBe('lab');
  });

  it('a window that showed a profile the host no longer has falls back to the first listed', async () => {
    expect(effectiveProfile('gone', TWO)).toBe('default');
    expect(effectiveProfile('lab', TWO)).toBe('lab');
    useHostStore.setState({ profile: 'gone' });
    const { bridge } = fakeBridge((name, input) => {
      const profile = (input as { profile?: string } | undefined)?.profile ?? 'default';
      switch (name) {
        case 'profiles:list':
          return TWO;
        case 'runner:snapshot':
          return profile === 'gone' ? new Error('There is no profile gone.') : snapshot(profile, 'idle');
        case 'settings:get':
          return profile === 'gone' ? new Error('There is no profile gone.') : { profile, settings: {}, overridden: [], warnings: [] };
        case 'turns:list':
          return { active: [], history: [], historyTotal: 0, offset: 0 };
        case 'telemetry:history':
        case 'log:recent':
          return [];
        default:
          return null;
      }
    });
    await loadSnapshot(bridge);
    expect(useHostStore.getState().profile).toBe('default');
    expect(useHostStore.getState().runner.snapshot?.profile).toBe('default');
  });

  it('the switcher shows every profile with its state, marks the shown one, and switches on a click', async () => {
    const { bridge, calls } = fakeBridge((name, input) =>
      name === 'runner:snapshot' ? snapshot((input as { profile: string }).profile, 'paused') : { profile: 'lab', settings: {}, overridden: [], warnings: [] },
    );
    setBridge(bridge);
    useHostStore.setState({ profiles: TWO.slice(0, 1) });
    const { container } = render(<ProfileSwitcher />);
    // One profile: no switcher, the window looks as a single runner's.
    expect(container.innerHTML).toBe('');
    act(() => useHostStore.setState({ profiles: TWO }));
    const chips = screen.getAllByTestId('profile-chip');
    expect(chips.map((c) => c.textContent)).toEqual(['AcmeWorking 1/2', 'Lab tenantPaused']);
    expect(chips[0]!.getAttribute('aria-current')).toBe('true');
    await act(async () => {
      fireEvent.click(chips[1]!);
    });
    expect(calls[0]).toEqual({ name: 'runner:snapshot', input: { profile: 'lab' } });
    expect(screen.getAllByTestId('profile-chip')[1]!.getAttribute('aria-current')).toBe('true');
  });
});
