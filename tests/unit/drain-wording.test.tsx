// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { duration } from '../../shared/status';
import { initialHostState, useHostStore } from '../../renderer/src/store';
import { StatusHeader } from '../../renderer/src/views/status-header';
import { useNow } from '../../renderer/src/views/use-now';

function MinuteClock() {
  return <span>{useNow(60_000)}</span>;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
  vi.setSystemTime(Date.parse('2026-12-03T10:00:00.000Z'));
  useHostStore.setState(initialHostState, true);
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

// The terminal said "up to 5 min" while the window said "up to 6 min" for the same drain:
// the header read the deadline against a clock that ticks once a minute.
it('the quit countdown in the header agrees with the drain limit (5 min, not 6)', () => {
  render(<MinuteClock />); // the minute clock already runs (it is shared), read 50 s ago
  vi.setSystemTime(Date.parse('2026-12-03T10:00:50.000Z'));
  const deadline = new Date(Date.now() + 5 * 60_000).toISOString();
  useHostStore.setState({
    runner: { ...useHostStore.getState().runner, status: { state: 'draining', remaining: 1, deadline, mode: 'after-turns', reason: 'Quitting.' } },
  });
  render(<StatusHeader />);
  expect(screen.getByTestId('status-line').textContent).toBe(`Stopping: waiting for 1 turn (up to ${duration(5 * 60_000)})`);
  expect(duration(5 * 60_000)).toBe('5 min');
  expect(duration(5 * 60_000 + 400)).toBe('5 min'); // a clock read a moment early
});
