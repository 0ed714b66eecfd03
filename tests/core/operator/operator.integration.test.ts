import { afterEach, describe, expect, it } from 'vitest';
import type { CapacityView, LifecycleOutcome, OperatorStatus, RequestBoard, RequestDetailView, SignOutResult } from '../../../shared/operator';
import { filesUnder, startHarness, type Harness } from '../../integration/core-harness';
import { operatorId, signIn } from './operator-helpers';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** The emulator's clock runs ahead by this much: tests let tokens expire without waiting. */
let serverSkewMs = 0;
const serverNow = () => Date.now() + serverSkewMs;
function advanceServerClock(ms: number): void {
  serverSkewMs += ms;
}

async function demo(config: Record<string, unknown> = {}, accessTokenTtlMs?: number): Promise<Harness> {
  serverSkewMs = 0;
  return startHarness({
    emulator: { seed: 'demo', now: serverNow, config: { oauthIntervalSec: 1, ...config }, ...(accessTokenTtlMs ? { accessTokenTtlMs } : {}) },
  });
}

function requestIds(harness: Harness): Record<string, string> {
  const byTitle = Object.fromEntries(harness.emu.admin.listBuildRequests().map((r) => [r.status, r.id]));
  return byTitle;
}

async function failure(harness: Harness, name: string, input?: unknown) {
  const result = await harness.core.host.invoke(name, input);
  if (result.ok) throw new Error(`${name} unexpectedly succeeded`);
  return result.error;
}

describe('operator sign-in against the emulator', () => {
  it('signs in with the device flow, reads the identity, and keeps the tokens only in the secret store', async () => {
    h = await demo();
    const before = await h.invoke<OperatorStatus>('operator:status');
    expect(before).toMatchObject({ session: { state: 'signed_out' }, signIn: null, lifecycle: { allowed: false } });
    const status = await signIn(h, 'Ada Admin');
    expect(status.session).toMatchObject({ state: 'signed_in', identity: { name: 'Ada Admin', role: 'tenant_admin' } });
    expect(status.lifecycle).toEqual({ allowed: true, reason: null });
    expect(status.controlPlane).toBe(new URL(h.emu.url).origin);
    // The emulator saw our client id.
    expect(h.emu.admin.listOAuthDeviceCodes()[0]).toMatchObject({ client_id: 'runner-tray', status: 'consumed' });

    // A restart finds the sign-in in the secret store.
    await h.restart();
    const again = await h.invoke<OperatorStatus>('operator:status');
    expect(again.session).toMatchObject({ state: 'signed_in', identity: { name: 'Ada Admin' } });
    const board = await h.invoke<RequestBoard>('requests:list');
    expect(board.requests).toHaveLength(6);
  });

  it('shows members the lifecycle controls as closed, with the reason; the server refuses them too', async () => {
    h = await demo();
    const status = await signIn(h, 'Max Member');
    expect(status.lifecycle).toEqual({ allowed: false, reason: expect.stringContaining('tenant admins') });
    const ids = requestIds(h);
    const error = await failure(h, 'requests:pause', { id: ids.in_progress });
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain('requires the tenant_admin role (you are member)');
    expect(error.message).toContain('Ask a tenant admin');
  });

  it('reports a denied sign-in, and allows another try', async () => {
    h = await demo();
    const started = await h.invoke<OperatorStatus>('operator:sign-in');
    if (started.signIn?.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.decideOAuthDeviceCode(started.signIn.userCode, operatorId(h, 'Ada Admin'), 'deny');
    const denied = await h.waitForEvent('operator:state', (s) => s.signIn?.phase === 'denied');
    expect(denied.session.state).toBe('signed_out');
    const retry = await h.invoke<OperatorStatus>('operator:sign-in');
    expect(retry.signIn?.phase).toBe('waiting');
    const canceled = await h.invoke<OperatorStatus>('operator:cancel-sign-in');
    expect(canceled.signIn?.phase).toBe('canceled');
  });

  it('signs out: revokes the grant at the server, then deletes the tokens', async () => {
    h = await demo();
    await signIn(h, 'Ada Admin');
    const out = await h.invoke<SignOutResult>('operator:sign-out');
    expect(out).toMatchObject({ revoked: true, message: null, status: { session: { state: 'signed_out' } } });
    expect(h.emu.admin.listEvents({ type: 'oauth.revoked' }).length).toBeGreaterThanOrEqual(1);
    expect((await failure(h, 'requests:list')).code).toBe('not_signed_in');
    await h.restart();
    expect((await h.invoke<OperatorStatus>('operator:status')).session.state).toBe('signed_out');
  });

  it('refuses sign-in with the reason when no secret store works', async () => {
    h = await startHarness({ emulator: { seed: 'demo' }, core: { secretStore: { ok: false, reason: 'The OS keychain is not usable (no dbus).' } } });
    const status = await h.invoke<OperatorStatus>('operator:status');
    expect(status.session).toEqual({ state: 'unavailable', reason: 'Sign-in is not possible: The OS keychain is not usable (no dbus).' });
    const error = await failure(h, 'operator:sign-in');
    expect(error).toMatchObject({ code: 'no_secret_store', message: expect.stringContaining('no dbus') });
  });
});

describe('build requests through the core', () => {
  it('lists the board and shows a request with its whole history', async () => {
    h = await demo();
    await signIn(h, 'Ada Admin');
    const board = await h.invoke<RequestBoard>('requests:list');
    expect(new Set(board.requests.map((r) => r.status))).toEqual(new Set(['open', 'in_progress', 'paused', 'blocked', 'canceled', 'closed']));
    const active = board.requests.find((r) => r.status === 'in_progress')!;
    expect(active).toMatchObject({
      currentPhase: 'build',
      risk: 'medium',
      maxIterations: 12,
      iterationsUsed: 3,
      maxWallClockSeconds: 7200,
      costBudgetUsd: '25.00',
    });
    const detail = await h.invoke<RequestDetailView>('requests:show', { id: active.id });
    expect(detail.phaseRuns.map((p) => p.phase)).toEqual(['intake', 'planning', 'plan_review', 'build']);
    expect(detail.gates.some((g) => g.status === 'open')).toBe(true);
    expect(detail.planVersions.map((v) => v.confidenceScore)).toEqual([55, 82]);
    expect(detail.planVersions[1]!.answers).toHaveLength(2);
    expect(detail.tasks.filter((t) => t.checkpointRef !== null || t.status === 'completed')).toHaveLength(2);
    expect(detail.changesets[0]).toMatchObject({ status: 'open', additions: 214, prUrl: 'https://github.com/acme/web/pull/412' });
    expect(detail.turns).toEqual({ active: [], history: [] });
    expect((await failure(h, 'requests:show', { id: crypto.randomUUID() })).code).toBe('not_found');
  });

  it('pauses, resumes and cancels, validating the reason inline', async () => {
    h = await demo();
    await signIn(h, 'Ada Admin');
    const ids = requestIds(h);
    const tooLong = await failure(h, 'requests:pause', { id: ids.in_progress, reason: 'x'.repeat(2001) });
    expect(tooLong).toMatchObject({ code: 'invalid_reason', field: 'reason' });
    const paused = await h.invoke<LifecycleOutcome>('requests:pause', { id: ids.in_progress, reason: '  release freeze  ' });
    expect(paused).toMatchObject({ kind: 'done', result: { status: 'paused', currentPhase: 'build' } });
    expect(h.emu.admin.listEvents({ type: 'forge.request.paused' })[0]?.data).toMatchObject({ reason: 'release freeze' });
    const resumed = await h.invoke<LifecycleOutcome>('requests:resume', { id: ids.in_progress, reason: '   ' });
    expect(resumed).toMatchObject({ kind: 'done', result: { status: 'in_progress' } });
    if (resumed.kind === 'done') expect(resumed.result.resumeFromTaskId).not.toBeNull();
    const canceled = await h.invoke<LifecycleOutcome>('requests:cancel', { id: ids.open });
    expect(canceled).toMatchObject({ kind: 'done', result: { status: 'canceled' } });
    const wrong = await failure(h, 'requests:resume', { id: ids.closed });
    expect(wrong.code).toBe('invalid_transition');
    expect(wrong.message).toMatch(/^Only a paused or blocked request can resume.*Refresh/);
  });

  it('resumes a request refused for its ceiling with a termination_bound that raises it [v1]', async () => {
    h = await demo();
    await signIn(h, 'Ada Admin');
    const id = requestIds(h).in_progress!;
    h.emu.admin.updateBuildRequest(id, { status: 'paused', max_iterations: 3, iterations_used: 3 });
    const refused = await failure(h, 'requests:resume', { id });
    expect(refused).toMatchObject({
      code: 'ceiling_reached',
      field: 'termination_bound',
      message: expect.stringMatching(/^Iteration ceiling reached.*Raise the ceiling/),
    });
    const bad = await failure(h, 'requests:resume', { id, terminationBound: {} });
    expect(bad.code).toBe('invalid_input');
    const resumed = await h.invoke<LifecycleOutcome>('requests:resume', { id, terminationBound: { maxIterations: 10, costBudgetUsd: '40.00' } });
    expect(resumed).toMatchObject({ kind: 'done', result: { status: 'in_progress' } });
    expect(h.emu.admin.showBuildRequest(id).request).toMatchObject({ max_iterations: 10, cost_budget_usd: '40.00' });
  });

  it("shows the tenant's runner capacity: each runner's newest observation [v1]", async () => {
    h = await demo();
    await signIn(h, 'Max Member');
    const runner = h.emu.admin.createRunner({ name: 'build-box' });
    const beat = (active: number, state: string) =>
      fetch(`${h!.emu.url}/api/runner/heartbeat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${runner.runner_secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ telemetry: { active_sessions: active, max_sessions: 4, runtimes: ['claude', 'codex'], model_account: { state } } }),
      });
    expect((await beat(1, 'available')).status).toBe(200);
    expect((await beat(3, 'limited until 2026-12-08T10:00Z')).status).toBe(200);
    const view = await h.invoke<CapacityView>('requests:capacity');
    expect(view.runners).toEqual([
      {
        runnerId: runner.runner_id,
        name: 'build-box',
        runtimes: ['claude', 'codex'],
        activeSessions: 3,
        maxSessions: 4,
        usageState: 'limited until 2026-12-08T10:00Z',
        paused: false,
        observedAt: expect.any(String),
      },
    ]);
  });

  it('hands off to the browser when the control plane wants a human confirmation, and follows it', async () => {
    h = await demo();
    h.emu.admin.setConfirmationMode(true);
    await signIn(h, 'Ada Admin');
    const ids = requestIds(h);
    const outcome = await h.invoke<LifecycleOutcome>('requests:pause', { id: ids.in_progress, reason: 'hold' });
    if (outcome.kind !== 'confirmation_required') throw new Error('expected a handoff');
    expect(outcome.url).toBe(`${h.emu.url}/confirm/${outcome.confirmationId}`);
    expect(await h.invoke('requests:confirmation', { id: outcome.confirmationId })).toMatchObject({ status: 'pending', result: null });
    h.emu.admin.decideConfirmation(outcome.confirmationId, 'confirm');
    expect(await h.invoke('requests:confirmation', { id: outcome.confirmationId })).toMatchObject({ status: 'confirmed', result: { status: 'paused' } });
    const detail = await h.invoke<RequestDetailView>('requests:show', { id: ids.in_progress });
    expect(detail.request.status).toBe('paused');
  });

  it('refreshes once on a 401 when the access token expired, and keeps working', async () => {
    h = await demo({}, 1500);
    await signIn(h, 'Ada Admin');
    await h.invoke('requests:list');
    advanceServerClock(1700);
    // Two reads at once after expiry share one refresh (refresh tokens rotate).
    const [a, b] = await Promise.all([h.invoke<RequestBoard>('requests:list'), h.invoke<RequestBoard>('requests:list')]);
    expect(a.requests).toHaveLength(6);
    expect(b.requests).toHaveLength(6);
    const issued = h.emu.admin.listEvents({ type: 'oauth.token_issued' });
    expect(issued).toHaveLength(2); // sign-in + exactly one refresh
    expect((await h.invoke<OperatorStatus>('operator:status')).session.state).toBe('signed_in');
  });

  it('asks to sign in again when the refresh is refused', async () => {
    h = await demo({}, 1000);
    await signIn(h, 'Ada Admin');
    // The control plane forgets every grant (a reset): the access token expires, the refresh is refused.
    advanceServerClock(1100);
    h.emu.admin.reset({ seed: 'demo' });
    const error = await failure(h, 'requests:list');
    expect(error.code).toBe('sign_in_again');
    expect(error.message).toMatch(/Sign in again\.$/);
    const status = await h.invoke<OperatorStatus>('operator:status');
    expect(status.session).toMatchObject({ state: 'sign_in_again' });
    expect(status.lifecycle.allowed).toBe(false);
  });

  it('says what to do when the control plane is unreachable or answers nonsense', async () => {
    h = await demo();
    await signIn(h, 'Ada Admin');
    const fault = h.emu.admin.addFault({ route: '/api/commands/*', malformed: { rate: 1, kind: 'wrong_shape' } });
    expect((await failure(h, 'requests:list')).code).toBe('bad_answer');
    h.emu.admin.clearFaults(fault.id);
    h.emu.admin.addFault({ route: '/api/commands/*', error: { rate: 1, status: 503 } });
    expect(await failure(h, 'requests:list')).toMatchObject({ code: 'server_error', message: expect.stringContaining('Try again') });
    h.emu.admin.clearFaults();
    h.emu.admin.addFault({ route: '/api/commands/*', drop: { rate: 1, when: 'before' } });
    expect(await failure(h, 'requests:list')).toMatchObject({ code: 'unreachable', message: expect.stringContaining('Check the connection') });
    // Still signed in: trouble on the network is not a reason to drop the session.
    expect((await h.invoke<OperatorStatus>('operator:status')).session.state).toBe('signed_in');
  });

  it('never lets a token reach an event, a log file or an answer', async () => {
    h = await demo({}, 1000);
    await signIn(h, 'Ada Admin');
    advanceServerClock(1100);
    await h.invoke('requests:list'); // forces a refresh
    const tokens = h.emu.admin.listEvents({ type: 'oauth.token_issued' });
    expect(tokens.length).toBe(2);
    await h.invoke('operator:sign-out');
    await h.core.shutdown(0);
    const stored = filesUnder(h.dataDir);
    const logs = stored
      .filter((f) => f.file.includes('log'))
      .map((f) => f.text)
      .join('\n');
    expect(logs).toContain('operator access token refreshed after a 401');
    expect(logs).toContain('operator signed out');
    const said = JSON.stringify(h.events) + logs;
    expect(said).not.toMatch(/oat_|ort_|odc_/);
    await h.restart();
  });
});
