// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunnerStatus } from '../../shared/status';
import { initialHostState, useHostStore } from '../../renderer/src/store';
import { StatusHeader } from '../../renderer/src/views/status-header';

const show = (status: RunnerStatus) => useHostStore.setState({ ...initialHostState, runner: { status, snapshot: null } }, true);

beforeEach(() => useHostStore.setState(initialHostState, true));
afterEach(cleanup);

describe('the held-back dashboard', () => {
  it('an idle runner held back says what it waits for, amber, in a reason line of its own', () => {
    const held = 'you are using this machine — resumes 5 min after you stop';
    show({ state: 'idle', reason: `Not taking work: ${held}.`, held });
    render(<StatusHeader />);
    expect(screen.getByTestId('status-line').textContent).toBe('Idle · not claiming');
    const reason = screen.getByTestId('status-reason');
    expect(reason.className).toContain('status-held');
    expect(screen.getByTestId('status-held').textContent).toBe(`Waiting: ${held}`);
  });

  it('a plain idle runner keeps its reason, not amber', () => {
    show({ state: 'idle', reason: 'Waiting for work.' });
    render(<StatusHeader />);
    expect(screen.getByTestId('status-reason').textContent).toBe('Waiting for work.');
    expect(screen.getByTestId('status-reason').className).not.toContain('status-held');
  });
});
