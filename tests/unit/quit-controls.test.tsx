// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CommandName } from '../../shared/contract';
import type { Result } from '../../shared/result';
import type { RunnerSnapshot } from '../../shared/runner';
import type { RunnerStatus } from '../../shared/status';
import type { TurnView } from '../../shared/turns';
import type { Bridge } from '../../renderer/src/bridge';
import { setBridge } from '../../renderer/src/bridge/instance';
import { initialHostState, useHostStore } from '../../renderer/src/store';
import { PauseControl } from '../../renderer/src/views/pause-control';
import { RuntimesCard } from '../../renderer/src/views/dashboard/runtimes-card';
import { deliveryText } from '../../renderer/src/views/turns/turn-text';

function snapshot(status: RunnerStatus, extra: Partial<RunnerSnapshot> = {}): RunnerSnapshot {
  return {
    status,
    pairing: null,
    identity: { runnerId: 'r-1', tenantId: 't-1', name: 'studio', controlPlane: 'http://127.0.0.1:7457', pairedAt: '2026-01-01T00:00:00.000Z' },
    secretStorage: { backend: 'keychain', warning: null, problem: null },
    heartbeat: { lastOkAt: '2026-01-01T00:00:00.000Z', nextAt: null, consecutiveFailures: 0, longPoll: true, intervalMs: 30_000 },
    runtimes: { claude: { installed: true, version: '2.1.197' }, codex: { installed: false } },
    modelAccount: { alias: 'default', state: 'unknown' },
    sessions: { active: 1, max: 2 },
    paused: null,
    ...extra,
  };
}

function recordingBridge() {
  const calls: { name: CommandName; input: unknown }[] = [];
  const bridge: Bridge = {
    transport: 'websocket',
    invoke: (async (name: CommandName, input?: unknown) => {
      calls.push({ name, input });
      return { ok: true, value: null } as Result<unknown>;
    }) as Bridge['invoke'],
    onEvents: () => () => {},
    onConnection: () => () => {},
    connect: () => {},
  };
  setBridge(bridge);
  return calls;
}

function show(snap: RunnerSnapshot) {
  useHostStore.setState({ ...initialHostState, connection: { state: 'open' }, runner: { status: snap.status, snapshot: snap } }, true);
}

const settle = () =>
  act(async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  });

beforeEach(() => useHostStore.setState(initialHostState, true));
afterEach(() => cleanup());

describe("the window's quit controls", () => {
  it('"Stop after the running turns" in the pause menu asks the core to quit after them', async () => {
    const calls = recordingBridge();
    show(snapshot({ state: 'working', reason: '', active: 1, limit: 2 }));
    render(<PauseControl />);
    fireEvent.click(screen.getByTestId('pause-menu'));
    // The menu's items load when it first opens.
    fireEvent.click(await screen.findByTestId('stop-after-turns'));
    await settle();
    expect(calls).toEqual([{ name: 'runner:quit', input: { mode: 'after-turns' } }]);
  });

  it('"Pause until tomorrow 9:00" pauses for the minutes to the next local 09:00', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date(2026, 11, 7, 20, 15));
      const calls = recordingBridge();
      show(snapshot({ state: 'idle', reason: '' }));
      render(<PauseControl />);
      fireEvent.click(screen.getByTestId('pause-menu'));
      const item = await screen.findByTestId('pause-until-morning');
      expect(item.textContent).toBe('Pause until tomorrow 9:00');
      fireEvent.click(item);
      await settle();
      expect(calls).toEqual([{ name: 'runner:pause', input: { minutes: 12 * 60 + 45, profile: 'default' } }]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a custom pause can carry a note', async () => {
    const calls = recordingBridge();
    show(snapshot({ state: 'idle', reason: '' }));
    render(<PauseControl />);
    fireEvent.click(screen.getByTestId('pause-menu'));
    fireEvent.click(await screen.findByText('Pause for…'));
    // The custom pause form loads when first opened.
    fireEvent.change(await screen.findByTestId('pause-note'), { target: { value: 'deploy window' } });
    fireEvent.click(screen.getByTestId('pause-custom-submit'));
    await settle();
    expect(calls).toEqual([{ name: 'runner:pause', input: { minutes: 45, note: 'deploy window', profile: 'default' } }]);
  });

  it('while the core waits for the turns: Stop now and Keep running, no Pause', async () => {
    const calls = recordingBridge();
    show(snapshot({ state: 'draining', reason: '', remaining: 1, mode: 'after-turns', deadline: new Date(Date.now() + 300_000).toISOString() }));
    render(<PauseControl />);
    expect(screen.queryByTestId('pause')).toBeNull();
    fireEvent.click(screen.getByTestId('quit-now'));
    await settle();
    fireEvent.click(screen.getByTestId('quit-cancel'));
    await settle();
    expect(calls).toEqual([
      { name: 'runner:quit', input: { mode: 'now' } },
      { name: 'runner:quit', input: { mode: 'cancel' } },
    ]);
  });

  it('with two profiles, Stop now and Keep running show on the one whose turn runs elsewhere', async () => {
    const calls = recordingBridge();
    const deadline = new Date(Date.now() + 300_000).toISOString();
    const quiet: RunnerStatus = { state: 'draining', reason: 'Quitting.', remaining: 0, mode: 'after-turns', deadline };
    const busy: RunnerStatus = { state: 'draining', reason: '', remaining: 1, mode: 'after-turns', deadline };
    show(snapshot(quiet, { sessions: { active: 0, max: 2 } }));
    const row = { connector: 'rost' as const, controlPlaneUrl: 'http://127.0.0.1:7457', runnerId: 'r', paused: false };
    useHostStore.setState({
      profiles: [
        { ...row, id: 'default', name: 'Default', status: quiet, active: 0 },
        { ...row, id: 'lab', name: 'Lab', status: busy, active: 1 },
      ],
    });
    render(<PauseControl />);
    expect(screen.getByTestId('quit-elsewhere').textContent).toBe('Waiting for 1 turn in Lab');
    fireEvent.click(screen.getByTestId('quit-cancel'));
    await settle();
    expect(calls).toEqual([{ name: 'runner:quit', input: { mode: 'cancel' } }]);
  });

  it('a runtime that is installed but not signed in is shown as such (amber), not as its version', () => {
    recordingBridge();
    show(
      snapshot(
        { state: 'idle', reason: '' },
        {
          runtimes: {
            claude: { installed: true, version: '2.1.197', signedIn: false, ready: false, problem: 'installed, not signed in — run `claude` and sign in' },
            codex: { installed: false },
          },
        },
      ),
    );
    render(<RuntimesCard />);
    const line = screen.getByTestId('runtime-problem-claude');
    expect(line.textContent).toBe('Claude Code: installed, not signed in — run `claude` and sign in');
    expect(line.className).toContain('warn-text');
  });

  it('a finished turn\'s result: waiting, refused and late are never a plain "Succeeded"', () => {
    const t = (delivery: TurnView['delivery']): TurnView => ({
      id: 'u',
      kind: 'turn_execution',
      runtime: 'claude',
      seat: null,
      buildRequestId: null,
      startedAt: '2026-01-01T00:00:00.000Z',
      endedAt: '2026-01-01T00:01:00.000Z',
      phase: 'succeeded',
      pid: null,
      tokens: null,
      costUsd: null,
      outputTail: '',
      summary: 'done',
      lease: null,
      reason: null,
      delivery,
    });
    const since = '2026-01-01T00:01:00.000Z';
    const now = Date.parse(since) + 90_000;
    expect(deliveryText(t({ state: 'waiting', attempts: 3, since, reason: '503' }), now)).toEqual({
      text: 'Result not delivered yet: 3 tries, waiting 1m 30s',
      tone: 'warn',
    });
    expect(deliveryText(t({ state: 'refused', attempts: 1, since, reason: 'not_found (404)' }), now)).toEqual({
      text: 'Result refused by the control plane: not_found (404)',
      tone: 'error',
    });
    expect(
      deliveryText(t({ state: 'delivered', attempts: 2, since, reason: 'late: the control plane had already ended the unit (lease_expired)', late: true }), now)
        ?.tone,
    ).toBe('warn');
    expect(deliveryText(t({ state: 'delivered', attempts: 1, since, reason: null }), now)).toEqual({ text: 'Result delivered', tone: 'quiet' });
  });
});
