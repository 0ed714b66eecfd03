// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ProfileSummary } from '../../shared/profiles';
import type { RunnerSnapshot } from '../../shared/runner';
import { initialHostState, useHostStore } from '../../renderer/src/store';
import { ActiveTurns } from '../../renderer/src/views/turns/active-turns';

const unpairedRost: RunnerSnapshot = {
  profile: 'default',
  status: { state: 'unpaired', reason: 'This machine is not paired with a control plane yet.' },
  pairing: null,
  identity: null,
  secretStorage: { backend: 'file', warning: null, problem: null },
  heartbeat: { lastOkAt: null, nextAt: null, consecutiveFailures: 0, longPoll: false, intervalMs: 30_000 },
  runtimes: null,
  modelAccount: { alias: 'default', state: 'unknown' },
  sessions: { active: 0, max: 2 },
  paused: null,
};
const profile = (id: string, connector: 'rost' | 'sechroom', runnerId: string | null): ProfileSummary => ({
  id,
  name: id,
  connector,
  controlPlaneUrl: 'http://127.0.0.1:1',
  status: runnerId ? { state: 'idle', reason: 'Live on lane codex.' } : { state: 'unpaired', reason: 'Not paired.' },
  runnerId,
  paused: false,
  active: 0,
});

beforeEach(() => useHostStore.setState(initialHostState, true));
afterEach(cleanup);

// In the demo the Rost profile waits for pairing while the Sechroom instance beside it runs tasks.
it('does not say that nothing runs until pairing while another profile takes work', () => {
  useHostStore.setState({
    profile: 'default',
    runner: { status: unpairedRost.status, snapshot: unpairedRost },
    profiles: [profile('default', 'rost', null), profile('demo-codex', 'sechroom', 'inst-1')],
  });
  render(<ActiveTurns selectedId={null} onSelect={() => undefined} />);
  expect(screen.getByTestId('active-empty').textContent).not.toContain('Nothing runs until');
  expect(screen.getByTestId('active-empty').textContent).toContain('the other profiles’ turns show here');
});

it('says it when no profile of the host is paired', () => {
  useHostStore.setState({ profile: 'default', runner: { status: unpairedRost.status, snapshot: unpairedRost }, profiles: [profile('default', 'rost', null)] });
  render(<ActiveTurns selectedId={null} onSelect={() => undefined} />);
  expect(screen.getByTestId('active-empty').textContent).toBe('Nothing runs until this machine is paired (see Pairing).');
});
