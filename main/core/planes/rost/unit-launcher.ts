import { errorText } from '../../../../shared/errors';
import type { Delivery, TurnView } from '../../../../shared/turns';
import type { ClaimedWork, RunnerConnector, RunnerCredentials } from './connector';
import { processStartToken } from '../../exec/process-start';
import type { Clock, Logger } from '../../base/ports';
import { isAuthFailure, type CapabilityDetector, type RuntimePreference } from '../../runner/capabilities';
import type { RuntimeBreaker } from '../../runner/runtime-breaker';
import type { ClaimAdmission } from '../../work/claim-admission';
import type { UnitExecutor } from '../../exec/executor-port';
import path from 'node:path';
import { ResultOutbox, type DeliveryEvent } from './outbox';
import { reportInterrupted, stopOrphans } from './recovery';
import type { ResumeCache } from './resume-cache';
import { RunningJournal, type RunningRecord } from './running-journal';
import type { TurnRegistry } from '../../work/turn-registry';
import { failedView } from './unit-result';
import { UnitRun } from './unit-run';

/** What launching needs from the profile's session. */
export interface LauncherHost {
  profile: string;
  current(): { connector: RunnerConnector; credentials: RunnerCredentials } | null;
  tenantId(): string | null;
  controlPlaneUrl(): string | null;
  runtime(): RuntimePreference;
  markRevoked(): void;
  /** A runtime's readiness changed (first auth failure, breaker tripped): status and heartbeat follow. */
  readinessChanged(notice: string | null): void;
  /** The number of this profile's turns changed. */
  activeChanged(active: number): void;
}

export interface UnitLauncherDeps {
  /** The profile's folder: its outbox and running journal live there. */
  dir: string;
  clock: Clock;
  log: Logger;
  random?: () => number;
  host: LauncherHost;
  registry: TurnRegistry;
  resume: ResumeCache;
  /** The number of results the control plane does not have yet changed. */
  onUndelivered(pending: number): void;
  executor: UnitExecutor;
  capabilities: CapabilityDetector;
  breaker?: RuntimeBreaker;
  knownSecrets(): readonly string[];
  /** Registers a unit's own secret (its MCP token) with the logger until the release is called. */
  registerTurnSecret?(secret: string): () => void;
  /** Extra env for runtime processes (tests point the CLIs at model stubs). */
  runtimeEnv?: Record<string, string>;
  admission?: ClaimAdmission;
}

/**
 * Runs claimed units of one profile: the turn row, the running journal, the result into
 * the durable outbox before anything else, the lease kept until the result is delivered.
 */
export class UnitLauncher {
  private readonly outbox: ResultOutbox;
  private readonly journal: RunningJournal;
  private readonly runs = new Map<string, UnitRun>();
  /** Finished units whose lease is kept until their result is delivered, by idempotency key. */
  private readonly awaitingDelivery = new Map<string, UnitRun>();
  /** The latest delivery state per key, for a turn row that is not finished yet when it comes. */
  private readonly deliveries = new Map<string, Delivery>();
  private readonly lostBeforeReport = new Map<string, string>();
  private readonly settled = new Set<() => void>();
  /** Units between their claim and their end (a few of them not in `runs` yet). */
  private pending = 0;
  /** What the running journal held at start (a crash's units), until they are reported. */
  private leftovers: RunningRecord[] = [];

  constructor(private readonly deps: UnitLauncherDeps) {
    this.journal = new RunningJournal(path.join(deps.dir, 'running'));
    this.outbox = new ResultOutbox({
      dir: path.join(deps.dir, 'outbox'),
      clock: deps.clock,
      log: deps.log.child('outbox'),
      ...(deps.random ? { random: deps.random } : {}),
      target: () => deps.host.current(),
      onRevoked: () => deps.host.markRevoked(),
      onChange: (pending) => deps.onUndelivered(pending),
      onDelivery: (event) => this.onDelivery(event),
      beforeReport: (key) => this.beforeReport(key),
    });
  }

  get activeCount(): number {
    return this.runs.size;
  }

  /** Results in the outbox the control plane does not have yet. */
  get undelivered(): number {
    return this.outbox.pending;
  }

  /**
   * First step of a start: runtimes a crashed host left running are stopped (a runtime may
   * outlive its host), before the host sweeps their turn folders (their MCP config among them).
   */
  async stopLeftovers(): Promise<void> {
    this.leftovers = await this.journal.leftovers();
    await stopOrphans(this.deps, this.leftovers);
  }

  /** Then: the units the crash interrupted are reported failed, once, and delivery starts. */
  async start(): Promise<void> {
    const { clock, log, host, registry } = this.deps;
    await this.outbox.load();
    await reportInterrupted({ clock, log, profile: host.profile, journal: this.journal, outbox: this.outbox, registry }, this.leftovers);
    this.leftovers = [];
    this.outbox.start();
  }

  /** After a good heartbeat: results waiting on a backoff are tried again now. */
  resumeDelivery(): void {
    this.outbox.resume();
  }

  /** Tries to deliver every queued result now. */
  flush(): Promise<void> {
    return this.outbox.flush();
  }

  /** Quit: the running turns get up to `limitMs`, then are canceled; their results are queued, then a delivery is tried. */
  async drain(limitMs: number): Promise<{ canceled: number }> {
    let canceled = 0;
    if (this.runs.size > 0) {
      await new Promise<void>((resolve) => {
        const t = this.deps.clock.setTimeout(resolve, limitMs);
        void this.whenIdle().then(() => {
          this.deps.clock.clearTimeout(t);
          resolve();
        });
      });
      canceled = this.cancelAll('the runner is quitting');
      await this.whenIdle();
    }
    await this.outbox.flush();
    return { canceled };
  }

  has(id: string): boolean {
    return this.runs.has(id);
  }

  /** Stops delivering; leases kept for undelivered results end with the process. */
  stop(): void {
    this.outbox.stop();
    for (const run of this.awaitingDelivery.values()) run.releaseLease();
    this.awaitingDelivery.clear();
  }

  cancel(id: string, reason = 'canceled by the operator'): boolean {
    const run = this.runs.get(id);
    if (!run) return false;
    run.cancel(reason);
    return true;
  }

  cancelAll(reason: string): number {
    for (const run of this.runs.values()) run.cancel(reason);
    return this.runs.size;
  }

  /** Resolves once no unit of this profile runs or is being launched. */
  whenIdle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (this.pending > 0) return;
        this.settled.delete(check);
        resolve();
      };
      this.settled.add(check);
    });
  }

  /** A delivery try starts: what the lease said so far decides whether this result is late. */
  beforeReport(key: string): void {
    const lost = this.awaitingDelivery.get(key)?.leaseLost ?? null;
    if (lost !== null) this.lostBeforeReport.set(key, lost);
  }

  /** The outbox's word on a result: the turn row says it, and a settled result's lease ends. */
  onDelivery(event: DeliveryEvent): void {
    const run = this.awaitingDelivery.get(event.key);
    // Only a loss seen before the try was sent makes it late (a cancel answered after the
    // control plane took our result is just the unit being over).
    const late = this.lostBeforeReport.get(event.key) ?? null;
    const delivery: Delivery =
      event.state === 'delivered'
        ? {
            state: 'delivered',
            attempts: event.attempts,
            since: event.enqueuedAt,
            reason: late ? `late: the control plane had already ended the unit (${late})` : null,
            ...(late ? { late: true } : {}),
          }
        : event.state === 'refused'
          ? {
              state: 'refused',
              attempts: event.attempts,
              since: event.enqueuedAt,
              reason: late ? `${event.reason}; the control plane had already ended the unit (${late})` : event.reason,
            }
          : { state: 'waiting', attempts: event.attempts, since: event.enqueuedAt, reason: event.error };
    if (event.state !== 'waiting') {
      run?.releaseLease();
      this.awaitingDelivery.delete(event.key);
      this.lostBeforeReport.delete(event.key);
    }
    // The delivery can beat the row into the history (the unit is still being finished): keep it for launch().
    if (!this.deps.registry.patchHistory(event.unitId, { delivery }) && this.deps.registry.get(event.unitId)) this.deliveries.set(event.key, delivery);
  }

  /** Runs one claimed unit to its end; never rejects. `refused`: why the unit was refused (the seed's `--once` exits 1 then). */
  /**
   * Runs a claimed unit to its end. `slotFree` is called once the runtime is done and its
   * result is on its way (in the outbox, its POST sent): the next claim need not wait for
   * the durable write and the journal, which go on here.
   */
  async launch(unit: ClaimedWork, slotFree: () => void = () => {}): Promise<{ refused: string | null }> {
    const host = this.deps.host;
    const target = host.current();
    const controlPlaneUrl = host.controlPlaneUrl();
    if (!target || !controlPlaneUrl) return { refused: null };
    const { connector, credentials } = target;
    this.pending++;
    const now = new Date(this.deps.clock.now()).toISOString();
    const view: TurnView = {
      id: unit.id,
      profile: host.profile,
      kind: unit.kind,
      runtime: null,
      seat: unit.seat ? { id: unit.seat.id, name: unit.seat.name ?? null } : null,
      buildRequestId: unit.build_request_id ?? null,
      startedAt: now,
      endedAt: null,
      phase: 'starting',
      pid: null,
      tokens: null,
      costUsd: null,
      outputTail: '',
      summary: null,
      lease: null,
      reason: null,
    };
    this.deps.registry.add(view);
    let note: RunningRecord = {
      runnerId: credentials.runnerId,
      unit: { id: unit.id, kind: unit.kind },
      attempt: unit.attempt ?? 1,
      runtime: null,
      startedAt: now,
      pid: null,
      seat: view.seat,
      buildRequestId: view.buildRequestId,
    };
    let spawnNoted: Promise<void> = Promise.resolve();
    // Settles once the first note is written (or failed): the note of the process goes after it.
    let firstNoted: () => void = () => undefined;
    const recorded = new Promise<void>((resolve) => (firstNoted = resolve));
    let releaseToken: (() => void) | undefined;
    let refused: string | null = null;
    let run: UnitRun | null = null;
    try {
      const capabilities = await this.deps.capabilities.get();
      run = new UnitRun(unit, {
        clock: this.deps.clock,
        log: this.deps.log.child('unit'),
        connector,
        credentials,
        tenantId: host.tenantId(),
        controlPlaneUrl,
        runtimePreference: host.runtime(),
        capabilities,
        tripped: this.deps.breaker?.state ?? {},
        executor: this.deps.executor,
        resume: this.deps.resume,
        knownSecrets: this.deps.knownSecrets,
        ...(this.deps.runtimeEnv ? { env: this.deps.runtimeEnv } : {}),
        ...(this.deps.admission ? { admits: (runtime: 'claude' | 'codex') => this.deps.admission!.admits(runtime) } : {}),
        patch: (patch) => this.deps.registry.patch(unit.id, patch),
        transcript: (line) => this.deps.registry.transcript(unit.id, line),
        onRevoked: () => host.markRevoked(),
        recordRunning: (runtime) => {
          note = { ...note, runtime };
          return this.journal.record(note).finally(firstNoted);
        },
        // The note learns the process (pid and start time): a restart can then stop that very process.
        // The runtime may start while the first note is being written: this one lands after it.
        onSpawn: (pid) => {
          spawnNoted = spawnNoted
            .then(() => recorded)
            .then(async () => {
              const processStart = await processStartToken(pid);
              note = { ...note, pid, processStart };
              await this.journal.record(note);
            })
            .catch((error: unknown) => this.deps.log.warn('could not note the runtime process in the journal', { unit: unit.id, error: errorText(error) }));
        },
      });
      this.runs.set(unit.id, run);
      host.activeChanged(this.runs.size);
      releaseToken = unit.mcp ? this.deps.registerTurnSecret?.(unit.mcp.token) : undefined;
      const outcome = await run.run();
      refused = outcome?.refused ?? null;
      let delivery: Delivery | null = null;
      if (outcome?.result) {
        const key = outcome.result.idempotency_key;
        this.awaitingDelivery.set(key, run);
        delivery = { state: 'sending', attempts: 0, since: new Date(this.deps.clock.now()).toISOString(), reason: null };
        const queued = this.outbox.enqueue({ runnerId: credentials.runnerId, unit: { id: unit.id, kind: unit.kind }, result: outcome.result });
        // What the turn says about its runtime (the breaker) is known before the next claim.
        this.learnFromOutcome({ result: outcome.result, view: outcome.view }, Date.parse(now));
        this.turnDone(unit.id, slotFree);
        await queued;
        this.deps.log.info('unit finished', { unit: unit.id, status: outcome.result.status });
      } else {
        run.releaseLease();
        this.turnDone(unit.id, slotFree);
      }
      // The turn folder's removal and the resume cache's write went on beside the result.
      await run.settled();
      // A note of the process still being written must land before the note is removed.
      await spawnNoted;
      await this.journal.clear(unit.id);
      delivery = this.deliveries.get(run.key) ?? delivery;
      this.deliveries.delete(run.key);
      this.deps.registry.finish(unit.id, { ...(outcome?.view ?? failedView('revoked')), endedAt: new Date(this.deps.clock.now()).toISOString(), delivery });
    } catch (error) {
      // Only the disk can fail here; the journal keeps the unit for the restart path.
      run?.releaseLease();
      if (run) this.awaitingDelivery.delete(run.key);
      this.deps.log.error('could not record the result of a unit', { unit: unit.id, error: errorText(error) });
      this.deps.registry.finish(unit.id, { ...failedView('the result could not be saved'), endedAt: new Date(this.deps.clock.now()).toISOString() });
    } finally {
      releaseToken?.();
      this.pending--;
      this.turnDone(unit.id, slotFree);
      for (const check of [...this.settled]) check();
    }
    return { refused };
  }

  /** The unit's runtime is done: it no longer counts as running, and its slot frees (once). */
  private turnDone(unitId: string, slotFree: () => void): void {
    if (!this.runs.delete(unitId)) return;
    this.deps.host.activeChanged(this.runs.size);
    slotFree();
  }

  /**
   * What a finished turn says about its runtime: a failure for want of credentials means
   * "not signed in" until the next check; quick failures for one reason feed the breaker.
   */
  private learnFromOutcome(
    outcome: { result: { status: string; runtime?: string | undefined }; view: { reason?: string | null; summary?: string | null; outputTail?: string } },
    startedAt: number,
  ): void {
    const runtime = outcome.result.runtime === 'claude-cli' ? 'claude' : outcome.result.runtime === 'codex-cli' ? 'codex' : null;
    if (!runtime) return;
    const failed = outcome.result.status === 'failed' && !(outcome.view.reason ?? '').startsWith('timed out after');
    let notice: string | null = null;
    let changed = false;
    if (failed && isAuthFailure(`${outcome.view.summary ?? ''}\n${outcome.view.outputTail ?? ''}`)) {
      const before = this.deps.capabilities.peek()?.[runtime].signedIn;
      this.deps.capabilities.markNotSignedIn(runtime, outcome.view.reason ?? 'authentication failed');
      changed = before !== false;
      if (changed) this.deps.log.warn('a turn failed for want of credentials; not claiming for this runtime until it is signed in', { runtime });
    }
    if (this.deps.breaker) {
      notice = this.deps.breaker.record(runtime, { startedAt, endedAt: this.deps.clock.now(), failed, reason: outcome.view.reason ?? null });
      if (notice) this.deps.log.warn('circuit breaker: claiming paused for a runtime', { runtime, reason: notice });
    }
    if (changed || notice) this.deps.host.readinessChanged(notice);
  }
}
