// @vitest-environment happy-dom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandInput, CommandName, CommandOutput } from '../../shared/contract';
import type { ProfileSummary } from '../../shared/profiles';
import type { Result } from '../../shared/result';
import type { WorkBoard } from '../../shared/work-layer';
import type { Bridge } from '../../renderer/src/bridge';
import { setBridge } from '../../renderer/src/bridge/instance';
import { initialHostState, useHostStore } from '../../renderer/src/store';
import { WorkView } from '../../renderer/src/views/work/work-view';
import { useWorkStore } from '../../renderer/src/views/work/work-store';

const summary = (id: string, connector: 'rost' | 'sechroom'): ProfileSummary => ({
  id,
  name: `${id} name`,
  connector,
  controlPlaneUrl: '',
  status: { state: 'idle', reason: 'x' },
  runnerId: null,
  paused: false,
  active: 0,
});

const boardOf = (profile: string): WorkBoard => ({
  state: 'ready',
  baseUrl: `http://127.0.0.1/${profile}`,
  briefs: [
    {
      id: `b-${profile}`,
      title: `Brief of ${profile}`,
      status: 'ready_for_decomposition',
      reasonCode: null,
      reason: null,
      source: null,
      updatedAt: '2026-01-01T00:00:00.000Z',
      plans: [],
    },
  ],
  more: { briefs: 0, plans: 0, tasks: 0 },
});

/** A bridge whose work:board answers wait until the test releases them, one by one, per profile. */
function gatedBridge() {
  const asked: string[] = [];
  const pending = new Map<string, () => void>();
  const bridge: Bridge = {
    transport: 'websocket',
    async invoke<K extends CommandName>(name: K, input?: CommandInput<K>): Promise<Result<CommandOutput<K>>> {
      const profile = (input as { profile: string }).profile;
      asked.push(`${name}:${profile}`);
      await new Promise<void>((resolve) => pending.set(profile, resolve));
      const value = profile === 'rost-main' ? { state: 'not_configured', message: 'The Work view belongs to Sechroom profiles: show one.' } : boardOf(profile);
      return { ok: true, value: value as CommandOutput<K> };
    },
    onEvents: () => () => {},
    onConnection: () => () => {},
    connect: () => {},
  };
  const release = async (profile: string) => {
    await act(async () => {
      pending.get(profile)?.();
      pending.delete(profile);
    });
  };
  return { bridge, asked, release };
}

beforeEach(() => {
  useHostStore.setState(initialHostState, true);
  useWorkStore.setState({ profile: null, board: null, boardError: null, open: null, notice: null });
});
afterEach(cleanup);

describe('the Work view follows the profile shown', () => {
  it('reads the shown profile’s Work Layer, and never shows one profile’s list under another’s name', async () => {
    const { bridge, asked, release } = gatedBridge();
    setBridge(bridge);
    useHostStore.setState({
      connection: { state: 'open' },
      profile: 'alpha',
      profiles: [summary('alpha', 'sechroom'), summary('beta', 'sechroom'), summary('rost-main', 'rost')],
    });
    render(<WorkView />);
    await release('alpha');
    expect(screen.getByTestId('work-layer-url').textContent).toBe('http://127.0.0.1/alpha');
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe('Work (Sechroom) · alpha name');

    // Switch to beta: alpha's list goes at once, before beta's answer.
    act(() => useHostStore.setState({ profile: 'beta' }));
    expect(screen.queryByText('Brief of alpha')).toBeNull();
    expect(screen.queryByTestId('work-layer-url')).toBeNull();
    await release('beta');
    expect(screen.getByText('Brief of beta')).toBeTruthy();
    expect(asked).toEqual(['work:board:alpha', 'work:board:beta']);

    // A late answer for the profile no longer shown is dropped.
    act(() => useHostStore.setState({ profile: 'rost-main' }));
    act(() => useHostStore.setState({ profile: 'alpha' }));
    await release('rost-main');
    expect(screen.queryByTestId('work-not-configured')).toBeNull();
    await release('alpha');
    expect(screen.getByText('Brief of alpha')).toBeTruthy();

    act(() => useHostStore.setState({ profile: 'rost-main' }));
    await release('rost-main');
    expect(screen.getByTestId('work-not-configured').textContent).toMatch(/belongs to Sechroom profiles/);
    expect(screen.queryByText(/Brief of/)).toBeNull();
  });
});
