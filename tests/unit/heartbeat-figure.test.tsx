// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunnerSnapshot } from '../../shared/runner';
import { initialHostState, useHostStore } from '../../renderer/src/store';
import { Figures } from '../../renderer/src/views/dashboard/figures';

// The heartbeat figure says what the snapshot says: a cadence of its own, or the heartbeat
// riding on the held long-poll claim [v1, protocol §3], when no beat of its own is timed.

function show(heartbeat: RunnerSnapshot['heartbeat']) {
  const snapshot = {
    heartbeat,
    identity: { runnerId: 'r1', tenantId: 't1', name: 'box', controlPlane: 'http://127.0.0.1:1', pairedAt: new Date().toISOString() },
  } as RunnerSnapshot;
  useHostStore.setState({ ...initialHostState, runner: { ...initialHostState.runner, snapshot } }, true);
  render(<Figures />);
  return screen.getByTestId('fig-heartbeat').querySelector('.figure-sub')?.textContent;
}

afterEach(() => {
  cleanup();
  useHostStore.setState(initialHostState, true);
});

const beat = { lastOkAt: new Date().toISOString(), consecutiveFailures: 0, longPoll: true, intervalMs: 30_000 };

describe('the heartbeat figure', () => {
  it('names its cadence while it beats on its own', () => {
    expect(show({ ...beat, nextAt: new Date(Date.now() + 30_000).toISOString(), onClaim: false })).toBe('every 30s · long-poll');
  });

  it('says the heartbeat rides on the held claim while one carries it', () => {
    expect(show({ ...beat, nextAt: null, onClaim: true })).toBe('rides on the held claim');
  });
});
