import { describe, expect, it } from 'vitest';
import type { LeaseHeartbeatResponse } from '../../../../shared/protocol';
import type { TurnView } from '../../../../shared/turns';
import { ConnectorError } from '../../../../main/core/connectors/errors';
import type { ExecutionOutcome, ExecutionRequest } from '../../../../main/core/exec/executor-port';
import type { ClaimedWork, RunnerConnector } from '../../../../main/core/planes/rost/connector';
import type { ResumeCache } from '../../../../main/core/planes/rost/resume-cache';
import type { UnitRunDeps } from '../../../../main/core/planes/rost/unit-run-deps';
import { UnitRun } from '../../../../main/core/planes/rost/unit-run';
import { FakeClock } from '../../../helpers/fake-clock';
import { testLogging } from '../../../helpers/test-logger';

const SECRET = 'runner-secret-value';
const KEY = 't1:seat:seat:user:user:session:sess:claude';

const outcome = (patch: Partial<ExecutionOutcome> = {}): ExecutionOutcome => ({
  status: 'succeeded',
  reason: 'exit',
  summary: 'done',
  exitCode: 0,
  outputTail: 'tail',
  durationMs: 5,
  outputBytes: 4,
  ...patch,
});

interface Execution {
  request: ExecutionRequest;
  /** What the executor saw of the start: true once the control plane took it. */
  accepted: Promise<boolean> | null;
  finish(o: ExecutionOutcome): void;
}

/** A unit run over fakes: a connector whose start and lease answers the test sets, an executor it finishes by hand. */
function harness(unitPatch: Partial<ClaimedWork> = {}, opts: { resumed?: string; recordFails?: boolean } = {}) {
  const clock = new FakeClock();
  const logging = testLogging();
  const events: string[] = [];
  const executions: Execution[] = [];
  const patches: Partial<TurnView>[] = [];
  const leaseBeats: { elapsed: number; timeoutMs: number | undefined }[] = [];
  let startError: unknown = null;
  let leaseAnswer: () => LeaseHeartbeatResponse | null | Promise<never> = () => ({ status: 'active', expires_at: '2026-12-01T13:00:00.000Z' });
  let revoked = 0;
  const forgotten: (string | null)[] = [];
  const connector = {
    start: async () => {
      events.push('start');
      if (startError) throw startError;
    },
    leaseHeartbeat: async (_c: unknown, _u: unknown, body: { elapsed_ms: number }, o?: { timeoutMs?: number }) => {
      leaseBeats.push({ elapsed: body.elapsed_ms, timeoutMs: o?.timeoutMs });
      return leaseAnswer();
    },
  } as unknown as RunnerConnector;
  const resume = {
    get: (key: string | null) => (key === KEY ? (opts.resumed ?? null) : null),
    remember: async () => undefined,
    forget: async (key: string | null) => void forgotten.push(key),
  } as unknown as ResumeCache;
  const deps: UnitRunDeps = {
    clock,
    log: logging.log,
    connector,
    credentials: { runnerId: 'r1', secret: SECRET },
    tenantId: 't1',
    controlPlaneUrl: 'https://forge.example',
    runtimePreference: 'auto',
    capabilities: { claude: { installed: true, path: '/bin/claude' }, codex: { installed: true, path: '/bin/codex' } },
    executor: {
      execute: (request) =>
        new Promise<ExecutionOutcome>((resolve) => {
          events.push('execute');
          executions.push({ request, accepted: request.startAccepted ?? null, finish: resolve });
        }),
      sweepStale: async () => 0,
    },
    resume,
    knownSecrets: () => [SECRET],
    patch: (p) => void patches.push(p),
    onRevoked: () => {
      revoked++;
    },
    recordRunning: async (runtime) => {
      events.push(`record:${runtime}`);
      if (opts.recordFails) throw new Error('disk full');
    },
  };
  const unit: ClaimedWork = { id: 'u1', kind: 'turn_execution', prompt: 'go', seat: { id: 'seat' }, user_id: 'user', session_id: 'sess', ...unitPatch };
  const run = new UnitRun(unit, deps);
  return {
    run,
    clock,
    events,
    executions,
    patches,
    leaseBeats,
    forgotten,
    revoked: () => revoked,
    warnings: () => logging.entries.filter((e) => e.level === 'warn').map((e) => e.msg),
    failStart: (error: unknown) => (startError = error),
    answerLease: (answer: typeof leaseAnswer) => (leaseAnswer = answer),
    /** Waits until the n-th execution has been asked for. */
    execution: async (n = 1) => {
      await clock.settle();
      const e = executions[n - 1];
      if (!e) throw new Error(`no execution ${n} yet`);
      return e;
    },
  };
}

describe('UnitRun: one Rost unit, start to result', () => {
  it('notes the unit, starts it, runs the runtime once the start is taken, and returns the result', async () => {
    const h = harness({ mcp: { url: '/mcp', token: 'mcp-token' }, timeout_ms: 60_000 }, { resumed: 'claude-1' });
    const result = h.run.run();
    const e = await h.execution();
    expect(h.events).toEqual(['execute', 'record:claude', 'start']);
    expect(await e.accepted).toBe(true);
    expect(e.request).toMatchObject({
      unitId: 'u1',
      runtime: 'claude',
      binary: '/bin/claude',
      prompt: 'go',
      mcp: { serverUrl: 'https://forge.example/mcp', token: 'mcp-token' },
      resumeSessionId: 'claude-1',
      timeoutMs: 60_000,
      knownSecrets: [SECRET, 'mcp-token'],
    });
    expect(h.patches).toContainEqual({ phase: 'running', runtime: 'claude' });
    e.request.onSpawn?.(4242);
    e.request.onOutput?.('partial');
    e.finish(outcome({ sessionId: 'claude-2' }));
    expect(await result).toMatchObject({ result: { status: 'succeeded', idempotency_key: 'u1:1', runtime: 'claude-cli' }, view: { phase: 'succeeded' } });
    expect(h.patches).toContainEqual({ pid: 4242 });
    expect(h.patches).toContainEqual({ outputTail: 'partial' });
    await h.run.settled();
  });

  it('reports nothing for a refused start, and the runtime never gets its prompt', async () => {
    const h = harness();
    h.failStart(new ConnectorError('rejected', `unit not claimable (${SECRET})`, 422));
    const result = h.run.run();
    const e = await h.execution();
    expect(await e.accepted).toBe(false);
    e.finish(outcome({ status: 'canceled', reason: 'canceled' }));
    const r = await result;
    expect(r?.result).toBeNull();
    expect(r?.view).toEqual({ phase: 'failed', reason: 'unit not claimable ([REDACTED])' });
    expect(r?.refused).not.toContain(SECRET);
    expect(h.warnings()).toEqual(['unit start refused; nothing is reported']);
  });

  it('shows a start the control plane refused because it canceled the unit as canceled', async () => {
    const h = harness();
    h.failStart(new ConnectorError('rejected', 'turn execution was canceled', 409));
    const result = h.run.run();
    (await h.execution()).finish(outcome({ status: 'canceled' }));
    expect((await result)?.view).toEqual({ phase: 'canceled', reason: 'canceled by the control plane before it started' });
  });

  it('says the runner was revoked when the start is unauthorized, and reports nothing', async () => {
    const h = harness();
    h.failStart(new ConnectorError('unauthorized', 'bad secret', 401));
    const result = h.run.run();
    (await h.execution()).finish(outcome({ status: 'canceled' }));
    expect(await result).toBeNull();
    expect(h.revoked()).toBe(1);
  });

  it('still notes and starts a unit it cannot run, then reports it failed without running anything', async () => {
    const h = harness({ brain: 'gemini' });
    const r = await h.run.run();
    expect(h.events).toEqual(['record:null', 'start']);
    expect(h.executions).toEqual([]);
    expect(r?.result).toMatchObject({ status: 'failed', summary: 'Runner runtime claude cannot execute requested gemini turn.' });
  });

  it('tells the runtime the start was not taken when the running note cannot be written, and throws', async () => {
    const h = harness({}, { recordFails: true });
    const result = h.run.run();
    const e = await h.execution();
    expect(await e.accepted).toBe(false);
    e.finish(outcome({ status: 'canceled' }));
    await expect(result).rejects.toThrow('disk full');
    expect(h.events).not.toContain('start');
  });

  it('runs the turn once more as a fresh session when claude no longer knows the resume id', async () => {
    const h = harness({}, { resumed: 'stale-id' });
    const result = h.run.run();
    (await h.execution(1)).finish(outcome({ status: 'failed', summary: 'No conversation found with session ID: stale-id' }));
    const second = await h.execution(2);
    expect(second.request.resumeSessionId).toBeNull();
    expect(h.forgotten).toEqual([KEY]);
    second.finish(outcome());
    expect((await result)?.result?.status).toBe('succeeded');
    expect(h.warnings()).toContain('claude does not know the resume id; running the turn as a fresh session');
  });

  it('forgets a stale resume id once: a fresh retry that fails too had resumed nothing', async () => {
    const h = harness({}, { resumed: 'stale-id' });
    const result = h.run.run();
    (await h.execution(1)).finish(outcome({ status: 'failed', summary: 'No conversation found with session ID: stale-id' }));
    (await h.execution(2)).finish(outcome({ status: 'failed', summary: 'model refused' }));
    expect((await result)?.view.reason).toBe('model refused');
    await h.run.settled();
    expect(h.forgotten).toEqual([KEY]);
    expect(h.executions).toHaveLength(2);
  });

  it('beats the lease while the runtime runs and until the result is delivered', async () => {
    const h = harness({ lease: { heartbeat_ms: 1_000, expires_at: '2026-12-01T13:00:00.000Z' } });
    const result = h.run.run();
    const e = await h.execution();
    await h.clock.advanceAsync(2_000);
    expect(h.leaseBeats.map((b) => b.elapsed)).toEqual([1_000, 2_000]);
    expect(h.patches).toContainEqual({ lease: 'active' });
    e.finish(outcome());
    await result;
    await h.clock.advanceAsync(1_000);
    expect(h.leaseBeats).toHaveLength(3);
    h.run.releaseLease();
    await h.clock.advanceAsync(5_000);
    expect(h.leaseBeats).toHaveLength(3);
    expect(h.clock.timerCount).toBe(0);
  });

  it('cancels the runtime when the control plane asks, with its reason', async () => {
    const h = harness({ lease: { heartbeat_ms: 1_000, expires_at: '2026-12-01T13:00:00.000Z' } });
    const result = h.run.run();
    const e = await h.execution();
    h.answerLease(() => ({ status: 'cancel_requested', expires_at: '2026-12-01T13:00:00.000Z', reason: 'request_canceled' }));
    await h.clock.advanceAsync(1_000);
    expect(e.request.signal.aborted).toBe(true);
    expect(h.patches).toContainEqual({ phase: 'canceling', reason: 'canceled by the control plane (request_canceled)' });
    e.finish(outcome({ status: 'canceled', reason: 'canceled' }));
    expect((await result)?.view.reason).toBe('canceled by the control plane (request_canceled)');
    await h.clock.advanceAsync(5_000);
    expect(h.leaseBeats).toHaveLength(1);
  });

  it('notes that the control plane gave the unit up when a cancel comes after the process ended', async () => {
    const h = harness({ lease: { heartbeat_ms: 1_000, expires_at: '2026-12-01T13:00:00.000Z' } });
    const result = h.run.run();
    (await h.execution()).finish(outcome());
    await result;
    h.answerLease(() => ({ status: 'cancel_requested', expires_at: '2026-12-01T13:00:00.000Z', reason: 'lease_expired' }));
    await h.clock.advanceAsync(1_000);
    expect(h.run.leaseLost).toBe('lease_expired');
    expect(h.warnings()).toContain('the control plane ended the unit before its result arrived');
    expect(h.clock.timerCount).toBe(0);
  });

  it('runs without lease beats where the control plane has none, and stops them when the runner is revoked', async () => {
    const none = harness({ lease: { heartbeat_ms: 1_000, expires_at: '2026-12-01T13:00:00.000Z' } });
    none.answerLease(() => null);
    const r1 = none.run.run();
    const e1 = await none.execution();
    await none.clock.advanceAsync(5_000);
    expect(none.leaseBeats).toHaveLength(1);
    e1.finish(outcome());
    await r1;

    const revoked = harness({ lease: { heartbeat_ms: 1_000, expires_at: '2026-12-01T13:00:00.000Z' } });
    revoked.answerLease(() => Promise.reject(new ConnectorError('unauthorized', 'revoked', 401)));
    const r2 = revoked.run.run();
    const e2 = await revoked.execution();
    await revoked.clock.advanceAsync(5_000);
    expect(revoked.leaseBeats).toHaveLength(1);
    expect(revoked.revoked()).toBe(1);
    e2.finish(outcome());
    await r2;
  });

  it('retries a failed lease beat soon, on the lease clock', async () => {
    const h = harness({ lease: { heartbeat_ms: 10_000, expires_at: '2026-12-01T13:00:00.000Z' } });
    h.answerLease(() => Promise.reject(new ConnectorError('network', 'down')));
    const result = h.run.run();
    const e = await h.execution();
    await h.clock.advanceAsync(12_000);
    expect(h.leaseBeats.map((b) => b.elapsed)).toEqual([10_000, 12_000]);
    expect(h.warnings()).toContain('lease heartbeat failed');
    e.finish(outcome());
    await result;
    h.run.releaseLease();
  });
});
