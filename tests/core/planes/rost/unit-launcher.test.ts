import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ResultRequest } from '../../../../shared/protocol';
import type { TurnView } from '../../../../shared/turns';
import { ConnectorError } from '../../../../main/core/connectors/errors';
import type { ExecutionOutcome, ExecutionRequest } from '../../../../main/core/exec/executor-port';
import type { CommandRunner } from '../../../../main/core/exec/process-runner';
import type { ClaimedWork, RunnerConnector } from '../../../../main/core/planes/rost/connector';
import { ResumeCache } from '../../../../main/core/planes/rost/resume-cache';
import { RunningJournal } from '../../../../main/core/planes/rost/running-journal';
import { UnitLauncher } from '../../../../main/core/planes/rost/unit-launcher';
import { CapabilityDetector } from '../../../../main/core/runner/capabilities';
import { RunnerStateStore } from '../../../../main/core/runner/runner-state-store';
import { TurnRegistry } from '../../../../main/core/work/turn-registry';
import { FakeClock } from '../../../helpers/fake-clock';
import { historyStore } from '../../../helpers/history-store';
import { testLogging } from '../../../helpers/test-logger';

const succeeded: ExecutionOutcome = { status: 'succeeded', reason: 'exit', summary: 'done', exitCode: 0, outputTail: 'tail', durationMs: 5, outputBytes: 4 };

const runner: CommandRunner = {
  which: async (name) => `/usr/bin/${name}`,
  run: async (_cmd, args) => ({ code: 0, stdout: args[0] === '--version' ? '1.0.0' : '{}', stderr: '' }),
};

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A launcher over a real outbox, journal and turn registry in a temp folder; the connector and the executor are fakes. */
async function harness(opts: { execute?: (request: ExecutionRequest) => Promise<ExecutionOutcome>; paired?: boolean } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rt-launcher-'));
  dirs.push(dir);
  const clock = new FakeClock();
  const logging = testLogging();
  const reports: { unit: string; result: ResultRequest }[] = [];
  let startError: unknown = null;
  const connector = {
    start: async () => {
      if (startError) throw startError;
    },
    leaseHeartbeat: async () => null,
    report: async (_c: unknown, unit: { id: string }, result: ResultRequest) => {
      reports.push({ unit: unit.id, result });
      return 'accepted' as const;
    },
  } as unknown as RunnerConnector;
  const active: number[] = [];
  const secrets: string[] = [];
  const released: string[] = [];
  const registry = new TurnRegistry(() => undefined, await historyStore());
  const state = new RunnerStateStore(path.join(dir, 'state.json'));
  const launcher = new UnitLauncher({
    dir,
    clock,
    log: logging.log,
    random: () => 0.5,
    host: {
      profile: 'p1',
      current: () => (opts.paired === false ? null : { connector, credentials: { runnerId: 'r1', secret: 'runner-secret' } }),
      tenantId: () => 't1',
      controlPlaneUrl: () => 'https://forge.example',
      runtime: () => 'auto',
      markRevoked: () => undefined,
      readinessChanged: () => undefined,
      activeChanged: (n) => void active.push(n),
    },
    registry,
    resume: new ResumeCache(state, () => clock.now()),
    onUndelivered: () => undefined,
    executor: { execute: opts.execute ?? (async () => succeeded), sweepStale: async () => 0 },
    capabilities: new CapabilityDetector(runner, clock),
    knownSecrets: () => ['runner-secret'],
    registerTurnSecret: (secret) => {
      secrets.push(secret);
      return () => void released.push(secret);
    },
  });
  /** A finished turn's row, once its delivery is settled (delivered or refused). */
  const row = async (id: string): Promise<TurnView | undefined> => {
    await vi.waitUntil(async () => {
      await clock.settle();
      const d = (await registry.detail(id))?.delivery?.state;
      return d === 'delivered' || d === 'refused';
    });
    return registry.detail(id);
  };
  return { dir, clock, launcher, registry, reports, active, secrets, released, row, failStart: (e: unknown) => (startError = e) };
}

const unit = (id: string, patch: Partial<ClaimedWork> = {}): ClaimedWork => ({ id, kind: 'turn_execution', prompt: 'go', ...patch });

describe('UnitLauncher: one profile’s claimed units, run to a delivered result', () => {
  it('runs a unit, frees its slot once, queues and delivers its result, and leaves a finished row and no note', async () => {
    const h = await harness();
    await h.launcher.start();
    const slotFree = vi.fn();
    expect(await h.launcher.launch(unit('u1', { mcp: { url: '/mcp', token: 'mcp-token' } }), slotFree)).toEqual({ refused: null });
    expect(slotFree).toHaveBeenCalledTimes(1);
    expect(h.active).toEqual([1, 0]);
    expect(await h.row('u1')).toMatchObject({
      phase: 'succeeded',
      profile: 'p1',
      runtime: 'claude',
      delivery: { state: 'delivered', attempts: 1, reason: null },
    });
    expect(h.reports).toEqual([{ unit: 'u1', result: expect.objectContaining({ status: 'succeeded', idempotency_key: 'u1:1' }) }]);
    expect(readdirSync(path.join(h.dir, 'running'))).toEqual([]);
    expect(readdirSync(path.join(h.dir, 'outbox'))).toEqual([]);
    expect(h.launcher.undelivered).toBe(0);
    // The unit's MCP token is a secret of the logger's while the unit runs, and only then.
    expect(h.secrets).toEqual(['mcp-token']);
    expect(h.released).toEqual(['mcp-token']);
  });

  it('reports nothing for a unit whose start was refused, and answers why', async () => {
    const h = await harness();
    await h.launcher.start();
    h.failStart(new ConnectorError('rejected', 'unit is not claimable', 422));
    const slotFree = vi.fn();
    expect(await h.launcher.launch(unit('u1'), slotFree)).toEqual({ refused: 'unit is not claimable' });
    expect(slotFree).toHaveBeenCalledTimes(1);
    await h.clock.settle();
    expect(h.reports).toEqual([]);
    expect(await h.registry.detail('u1')).toMatchObject({ phase: 'failed', reason: 'unit is not claimable', delivery: null });
  });

  it('launches nothing while the profile is not paired', async () => {
    const h = await harness({ paired: false });
    expect(await h.launcher.launch(unit('u1'))).toEqual({ refused: null });
    expect(h.registry.activeTurns()).toEqual([]);
    expect(await h.registry.detail('u1')).toBeUndefined();
  });

  it('reports the units a crash interrupted failed, once, when it starts again', async () => {
    const h = await harness();
    await new RunningJournal(path.join(h.dir, 'running')).record({
      runnerId: 'r1',
      unit: { id: 'crashed', kind: 'work_order' },
      attempt: 1,
      runtime: 'codex',
      startedAt: '2026-12-01T11:00:00.000Z',
      pid: null,
    });
    await h.launcher.stopLeftovers();
    await h.launcher.start();
    expect(await h.row('crashed')).toMatchObject({ phase: 'failed', reason: 'interrupted by a restart: reported failed' });
    expect(h.reports).toEqual([{ unit: 'crashed', result: expect.objectContaining({ status: 'failed', summary: 'runner restarted' }) }]);
    expect(readdirSync(path.join(h.dir, 'running'))).toEqual([]);
  });

  it('gives running units the drain time, then cancels them and still reports their results', async () => {
    const h = await harness({
      execute: (request) =>
        new Promise((resolve) =>
          request.signal.addEventListener('abort', () => resolve({ ...succeeded, status: 'canceled', reason: 'canceled', summary: 'stopped' })),
        ),
    });
    await h.launcher.start();
    const launched = h.launcher.launch(unit('u1'));
    await vi.waitUntil(async () => {
      await h.clock.settle();
      return h.launcher.activeCount === 1;
    });
    const drained = h.launcher.drain(10_000);
    await h.clock.advanceAsync(9_999);
    expect(h.launcher.has('u1')).toBe(true);
    await h.clock.advanceAsync(1);
    expect(await drained).toEqual({ canceled: 1 });
    await launched;
    expect(await h.row('u1')).toMatchObject({ phase: 'canceled', reason: 'the runner is quitting' });
    expect(h.reports.map((r) => r.result.status)).toEqual(['canceled']);
  });

  it('cancels one unit by id for the operator', async () => {
    const h = await harness({
      execute: (request) =>
        new Promise((resolve) => request.signal.addEventListener('abort', () => resolve({ ...succeeded, status: 'canceled', reason: 'canceled' }))),
    });
    await h.launcher.start();
    const launched = h.launcher.launch(unit('u1'));
    await vi.waitUntil(async () => {
      await h.clock.settle();
      return h.launcher.has('u1');
    });
    expect(h.launcher.cancel('nope')).toBe(false);
    expect(h.launcher.cancel('u1')).toBe(true);
    await launched;
    await h.launcher.whenIdle();
    expect(await h.row('u1')).toMatchObject({ phase: 'canceled', reason: 'canceled by the operator' });
  });
});
