// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandName } from '../../shared/contract';
import type { DeliveryRecord } from '../../shared/delivery';
import type { Result } from '../../shared/result';
import type { TurnView } from '../../shared/turns';
import type { Bridge } from '../../renderer/src/bridge';
import { setBridge } from '../../renderer/src/bridge/instance';
import { TurnDetail } from '../../renderer/src/views/turns/turn-detail';

const PR = 'https://github.com/acme/widgets/pull/42';
const git: DeliveryRecord = {
  branch: 'task/mem-1',
  base: { commit: '0123456789abcdef0123456789abcdef01234567', ref: 'main' },
  commit: 'fedcba9876543210fedcba9876543210fedcba98',
  pushed: true,
  prUrl: PR,
  note: 'committed fedcba987654 on task/mem-1, pushed to origin, PR opened',
  keptWorktree: null,
};

const turn = (patch: Partial<TurnView> = {}): TurnView => ({
  id: 'sechroom:lse_1',
  profile: 'work',
  kind: 'turn_execution',
  runtime: 'codex',
  seat: null,
  buildRequestId: null,
  startedAt: '2026-12-03T08:00:00.000Z',
  endedAt: '2026-12-03T08:01:00.000Z',
  phase: 'succeeded',
  pid: null,
  tokens: null,
  costUsd: null,
  outputTail: '',
  summary: 'Exported.',
  lease: null,
  reason: null,
  plane: 'sechroom',
  title: 'Add CSV export',
  verdict: 'pass',
  lifecyclePhase: null,
  leaseState: 'completed',
  git,
  ...patch,
});

function ipcBridge(answer: (input: unknown) => Result<unknown>) {
  const calls: { name: CommandName; input: unknown }[] = [];
  const bridge: Bridge = {
    transport: 'ipc',
    invoke: (async (name: CommandName, input?: unknown) => {
      calls.push({ name, input });
      return answer(input);
    }) as Bridge['invoke'],
    onEvents: () => () => {},
    onConnection: () => () => {},
    connect: () => {},
  };
  setBridge(bridge);
  return calls;
}

afterEach(cleanup);

describe('a Sechroom turn’s git delivery in the turn detail', () => {
  it('shows base, branch pushed, commit, the PR link (opened through app:open-external) and the note', async () => {
    const calls = ipcBridge(() => ({ ok: true, value: null }));
    render(<TurnDetail turn={turn()} />);
    expect(screen.getByTestId('detail-git-base').textContent).toBe('main @ 0123456789ab');
    expect(screen.getByTestId('detail-git-branch').textContent).toBe('task/mem-1 · pushed');
    expect(screen.getByTestId('detail-git-commit').textContent).toBe('fedcba987654');
    expect(screen.getByTestId('detail-git-note').textContent).toBe(git.note);
    fireEvent.click(screen.getByTestId('detail-pr'));
    await act(async () => {
      for (let i = 0; i < 5; i++) await Promise.resolve();
    });
    // The detail also reads the turn's transcript; the click opens the PR through the host.
    expect(calls.filter((c) => c.name === 'app:open-external')).toEqual([{ name: 'app:open-external', input: { url: PR } }]);
  });

  it('says local only, detached HEAD, no PR and where kept work is; no git facts for a turn without delivery', () => {
    ipcBridge(() => ({ ok: true, value: null }));
    const kept = { ...git, base: { ...git.base, ref: null }, pushed: false, prUrl: null, keptWorktree: '/data/delivery/trees/wt_1' };
    const { unmount } = render(<TurnDetail turn={turn({ git: kept })} />);
    expect(screen.getByTestId('detail-git-base').textContent).toBe('detached HEAD @ 0123456789ab');
    expect(screen.getByTestId('detail-git-branch').textContent).toBe('task/mem-1 · local only');
    expect(screen.getByTestId('detail-git-pr').textContent).toBe('none');
    expect(screen.getByTestId('detail-git-note').textContent).toContain('work kept in /data/delivery/trees/wt_1');
    unmount();
    render(<TurnDetail turn={turn({ git: null })} />);
    expect(screen.queryByTestId('detail-git-branch')).toBeNull();
  });
});
