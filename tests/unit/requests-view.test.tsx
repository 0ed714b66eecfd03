// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CommandName, HostEvent } from '../../shared/contract';
import type { OperatorStatus, RequestBoard, RequestDetailView, RequestSummaryView } from '../../shared/operator';
import type { Result } from '../../shared/result';
import type { Bridge } from '../../renderer/src/bridge';
import { setBridge } from '../../renderer/src/bridge/instance';
import { useHostStore } from '../../renderer/src/store';
import { RequestsView } from '../../renderer/src/views/requests/requests-view';
import { initialRequestsState, useRequestsStore } from '../../renderer/src/views/requests/requests-store';

const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

function summary(id: string, title: string, extra: Partial<RequestSummaryView> = {}): RequestSummaryView {
  return {
    id,
    projectId: 'p1',
    title,
    status: 'in_progress',
    sourceChannel: 'ui',
    currentPhase: 'build',
    risk: 'high',
    automationMode: 'plan_only',
    maxIterations: 10,
    iterationsUsed: 4,
    maxWallClockSeconds: null,
    costBudgetUsd: null,
    createdAt: new Date(Date.now() - 3_600_000).toISOString(),
    ...extra,
  };
}

const ID = '00000000-0000-4000-8000-000000000001';
const signedIn = (role: 'tenant_admin' | 'member'): OperatorStatus => ({
  controlPlane: 'http://127.0.0.1:7457',
  session: { state: 'signed_in', identity: { operatorId: 'o1', tenantId: 't1', name: 'Ada <b>Admin</b>', role } },
  signIn: null,
  lifecycle:
    role === 'tenant_admin'
      ? { allowed: true, reason: null }
      : { allowed: false, reason: 'Only tenant admins can pause, resume or cancel requests; you are signed in as a member.' },
});

function detail(): RequestDetailView {
  return {
    request: summary(ID, HOSTILE),
    phaseRuns: [{ id: 'r1', phase: 'build', status: 'running', attempt: 2, startedAt: null, completedAt: null, createdAt: '2026-12-01T10:00:00Z' }],
    gates: [{ id: 'g1', kind: 'plan_approval', title: HOSTILE, status: 'open', phaseRunId: null, decidedAt: null, createdAt: '2026-12-01T10:00:00Z' }],
    planVersions: [
      {
        id: 'v1',
        versionNo: 1,
        status: 'approved',
        summary: '**md** [x](javascript:alert(1))',
        confidenceScore: 80,
        clarifyingQuestions: [HOSTILE],
        answers: [{ question: HOSTILE, answer: 'Yes <i>really</i>' }],
        createdAt: '2026-12-01T10:00:00Z',
      },
    ],
    tasks: [
      {
        id: 't1',
        ordinal: 1,
        title: 'Write the exporter',
        status: 'completed',
        planVersionId: 'v1',
        checkpointRef: 'checkpoint:u1',
        completedAt: '2026-12-01T11:00:00Z',
      },
    ],
    changesets: [{ id: 'c1', title: 'feat', status: 'open', branch: 'b', prUrl: 'javascript:alert(1)', additions: 3, deletions: 1, taskId: null }],
    turns: { active: [], history: [] },
    fetchedAt: new Date().toISOString(),
  };
}

/** A bridge whose answers the test scripts; records what was invoked. */
function fakeBridge(answers: Partial<Record<CommandName, (input: unknown) => unknown>>, transport: Bridge['transport'] = 'websocket') {
  const calls: { name: CommandName; input: unknown }[] = [];
  const listeners = new Set<(events: HostEvent[]) => void>();
  const bridge: Bridge = {
    transport,
    invoke: (async (name: CommandName, input?: unknown) => {
      calls.push({ name, input });
      const answer = answers[name];
      if (!answer) return { ok: false, error: { code: 'unknown', message: `no answer for ${name}` } };
      const value = answer(input);
      return (value && typeof value === 'object' && 'ok' in value ? value : { ok: true, value }) as Result<unknown>;
    }) as Bridge['invoke'],
    onEvents: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onConnection: () => () => {},
    connect: () => {},
  };
  setBridge(bridge);
  return { calls, emit: (events: HostEvent[]) => listeners.forEach((l) => l(events)) };
}

const board = (requests: RequestSummaryView[]): RequestBoard => ({ requests, activeHere: [], fetchedAt: new Date().toISOString() });

beforeEach(() => {
  // The open request lives in the address (#requests/<id>): each test starts on the board.
  window.history.replaceState(null, '', '#requests');
  useRequestsStore.setState(initialRequestsState, true);
  useHostStore.setState({ connection: { state: 'open' } });
});
afterEach(() => {
  cleanup();
});

async function settle() {
  await act(async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  });
}

// happy-dom lays nothing out: give elements a height, or the virtualized board draws no rows.
const clientHeight = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight');
beforeAll(() => {
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 600 });
});
afterAll(() => {
  if (clientHeight) Object.defineProperty(HTMLElement.prototype, 'clientHeight', clientHeight);
});

describe('the requests view', () => {
  it('renders control-plane text as text, never as HTML, on the board and in the detail', async () => {
    fakeBridge({ 'operator:status': () => signedIn('tenant_admin'), 'requests:list': () => board([summary(ID, HOSTILE)]), 'requests:show': () => detail() });
    const { container } = render(<RequestsView />);
    await settle();
    expect(screen.getByTestId('operator-bar').textContent).toContain('Ada <b>Admin</b>');
    expect(screen.getByTestId('request-row').textContent).toContain(HOSTILE);
    fireEvent.click(screen.getByTestId('request-row'));
    await settle();
    expect(screen.getByTestId('detail-title').textContent).toBe(HOSTILE);
    expect(screen.getByTestId('clarifications').textContent).toContain('Yes <i>really</i>');
    expect(container.querySelectorAll('img, script, b, i, iframe').length).toBe(0);
    // A javascript: pull request address is not a link.
    expect(screen.getByTestId('changesets').querySelectorAll('a').length).toBe(0);
    expect((window as unknown as { __pwned?: unknown }).__pwned).toBeUndefined();
  });

  it('shows members the actions disabled with the reason', async () => {
    fakeBridge({ 'operator:status': () => signedIn('member'), 'requests:list': () => board([summary(ID, 'Export')]), 'requests:show': () => detail() });
    render(<RequestsView />);
    await settle();
    fireEvent.click(screen.getByTestId('request-row'));
    await settle();
    for (const action of ['pause', 'resume', 'cancel']) expect((screen.getByTestId(`action-${action}`) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId('lifecycle-reason').textContent).toContain('Only tenant admins');
  });

  it('validates the reason inline and sends it trimmed by the core, omitted when blank', async () => {
    const { calls } = fakeBridge({
      'operator:status': () => signedIn('tenant_admin'),
      'requests:list': () => board([summary(ID, 'Export')]),
      'requests:show': () => detail(),
      'requests:pause': () => ({
        kind: 'done',
        result: { status: 'paused', currentPhase: 'build', phaseRunId: null, workOrderId: null, resumeFromTaskId: null },
      }),
    });
    render(<RequestsView />);
    await settle();
    fireEvent.click(screen.getByTestId('request-row'));
    await settle();
    fireEvent.click(screen.getByTestId('action-pause'));
    fireEvent.change(screen.getByTestId('reason'), { target: { value: 'y'.repeat(2001) } });
    expect(screen.getByTestId('reason-error').textContent).toBe('The reason can be at most 2000 characters (it has 2001).');
    expect((screen.getByTestId('confirm-action') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByTestId('reason'), { target: { value: '   ' } });
    fireEvent.click(screen.getByTestId('confirm-action'));
    await settle();
    expect(calls.find((c) => c.name === 'requests:pause')?.input).toEqual({ id: ID });
    expect(screen.getByTestId('action-notice').textContent).toContain('Paused.');
  });

  it('shows the sign-in code and follows the core through operator:state events', async () => {
    const waiting: OperatorStatus = {
      controlPlane: 'http://127.0.0.1:7457',
      session: { state: 'signed_out' },
      signIn: {
        phase: 'waiting',
        userCode: 'BCDF-GHJK',
        verificationUri: 'http://127.0.0.1:7457/oauth/device',
        verificationUriComplete: 'javascript:alert(1)',
        expiresAt: new Date(Date.now() + 600_000).toISOString(),
        intervalSeconds: 5,
        trouble: null,
      },
      lifecycle: { allowed: false, reason: 'Sign in as a tenant admin to pause, resume or cancel requests.' },
    };
    const { emit } = fakeBridge({ 'operator:status': () => waiting, 'requests:list': () => board([]) });
    render(<RequestsView />);
    await settle();
    expect(screen.getByTestId('sign-in-code').textContent).toBe('BCDF-GHJK');
    // The complete address is not http(s): the plain one is linked instead.
    expect(screen.getByTestId('sign-in-link').getAttribute('href')).toBe('http://127.0.0.1:7457/oauth/device');
    act(() => emit([{ event: 'operator:state', payload: { ...waiting, signIn: { phase: 'denied' } } }]));
    expect(screen.getByTestId('sign-in-outcome').textContent).toContain('denied');
    act(() => emit([{ event: 'operator:state', payload: signedIn('tenant_admin') }]));
    await settle();
    expect(screen.getByTestId('operator-bar')).toBeTruthy();
  });

  it('in the desktop window, a pull request link goes through the host’s external-link check; a refusal shows the address', async () => {
    const pr = 'https://github.com/acme/app/pull/7';
    const withPr = { ...detail(), changesets: [{ id: 'c1', title: 'feat', status: 'open', branch: 'b', prUrl: pr, additions: 3, deletions: 1, taskId: null }] };
    const refused = { ok: false, error: { code: 'refused', message: 'Only addresses on the control plane can be opened from here.' } };
    const { calls } = fakeBridge(
      {
        'operator:status': () => signedIn('tenant_admin'),
        'requests:list': () => board([summary(ID, 'Export')]),
        'requests:show': () => withPr,
        'app:open-external': () => refused,
      },
      'ipc',
    );
    render(<RequestsView />);
    await settle();
    fireEvent.click(screen.getByTestId('request-row'));
    await settle();
    fireEvent.click(screen.getByTestId('pr-link'));
    await settle();
    expect(calls.filter((c) => c.name === 'app:open-external')).toEqual([{ name: 'app:open-external', input: { url: pr } }]);
    expect(screen.getByTestId('pr-link-refused').textContent).toContain(pr);
  });

  it('in the desktop window, opens control-plane links through the host instead of a new window', async () => {
    const waiting: OperatorStatus = {
      controlPlane: 'http://127.0.0.1:7457',
      session: { state: 'signed_out' },
      signIn: {
        phase: 'waiting',
        userCode: 'BCDF-GHJK',
        verificationUri: 'http://127.0.0.1:7457/oauth/device',
        verificationUriComplete: 'http://127.0.0.1:7457/oauth/device?code=BCDF-GHJK',
        expiresAt: new Date(Date.now() + 600_000).toISOString(),
        intervalSeconds: 5,
        trouble: null,
      },
      lifecycle: { allowed: false, reason: null },
    };
    const { calls } = fakeBridge({ 'operator:status': () => waiting, 'app:open-external': () => null }, 'ipc');
    render(<RequestsView />);
    await settle();
    fireEvent.click(screen.getByTestId('sign-in-link'));
    await settle();
    expect(calls.filter((c) => c.name === 'app:open-external')).toEqual([
      { name: 'app:open-external', input: { url: 'http://127.0.0.1:7457/oauth/device?code=BCDF-GHJK' } },
    ]);
  });
});
