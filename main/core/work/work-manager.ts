import { errorText } from '../../../shared/errors';
import type { TurnView } from '../../../shared/turns';
import type { ClaimedWork, RunnerConnector, RunnerCredentials } from '../connectors/connector';
import { isConnectorError } from '../connectors/errors';
import type { Clock, Logger, TimerHandle } from '../ports';
import { backoffDelay } from '../runner/backoff';
import { isAuthFailure, type CapabilityDetector, type RuntimeName, type RuntimePreference } from '../runner/capabilities';
import type { RuntimeBreaker } from '../runner/runtime-breaker';
import { describeNotReady, runtimeReadiness } from '../runner/runtime-readiness';
import type { ClaimAdmission } from './claim-admission';
import type { UnitExecutor } from './executor-port';
import type { DeliveryEvent, ResultOutbox } from './outbox';
import type { Delivery } from '../../../shared/turns';
import type { ResumeCache } from './resume-cache';
import type { RunningJournal } from './running-journal';
import type { TurnRegistry } from './turn-registry';
import { failedUnit, failedView } from './unit-result';
import { UnitRun } from './unit-run';
import type { RunningRecord } from './running-journal';
import { processStartToken } from '../exec/process-start';
import { terminateTree } from '../exec/process-tree';

/** What the work manager needs from the runner host. */
export interface WorkHost {
  credentials(): RunnerCredentials | null;
  connector(): RunnerConnector | null;
  tenantId(): string | null;
  controlPlaneUrl(): string | null;
  /** The server's long-poll limit from the last heartbeat, or null. */
  longPollMaxMs(): number | null;
  paused(): boolean;
  config(): { maxSessions: number; interactiveClaimMs: number; runtime: RuntimePreference; runWork: boolean };
  onHeartbeat(listener: () => void): () => void;
  setActive(active: number): void;
  markRevoked(): Promise<void>;
  /** Why no allowed runtime can take work (not signed in, breaker open), or null: nothing is claimed meanwhile. */
  notReady?(): string | null;
  /** A runtime's readiness changed (first auth failure, breaker tripped): status and heartbeat follow. */
  readinessChanged?(notice: string | null): void;
}

export interface WorkManagerDeps {
  clock: Clock;
  log: Logger;
  random?: () => number;
  host: WorkHost;
  registry: TurnRegistry;
  outbox: ResultOutbox;
  journal: RunningJournal;
  resume: ResumeCache;
  executor: UnitExecutor;
  capabilities: CapabilityDetector;
  breaker?: RuntimeBreaker;
  knownSecrets(): readonly string[];
  /** Registers a unit's own secret (its MCP token) with the logger until the release is called. */
  registerTurnSecret?(secret: string): () => void;
  /** Extra env for runtime processes (tests point the CLIs at model stubs). */
  runtimeEnv?: Record<string, string>;
  /**
   * `adaptive` (ours): long-poll when offered, claim again the moment a slot frees.
   * `seed`: the seed CLI's cadence, kept for the benchmark baseline.
   */
  strategy?: 'adaptive' | 'seed';
  /** false: claim only when asked (`runOne`, for `--once`); heartbeats still resume the outbox. */
  autoClaim?: boolean;
  /** Usage admission (reserve and limits of the lent accounts); absent: always admitted. */
  admission?: ClaimAdmission;
}

/** What `runOne` did: whether a unit was claimed, and whether anything on the way failed. */
export interface RunOneOutcome {
  claimed: boolean;
  /** A claim, start or result delivery that failed (the seed's `--once` exits 1 then). */
  error: string | null;
}

const CLAIM_BACKOFF = { baseMs: 1_000, capMs: 60_000 };

/**
 * Claims work and runs it: up to max_sessions units at once, never while paused or
 * draining; results go to the durable outbox before anything else happens.
 */
export class WorkManager {
  private running = false;
  private claiming = false;
  private launching = 0;
  private claimFailures = 0;
  private pollTimer: TimerHandle | null = null;
  private retryTimer: TimerHandle | null = null;
  private longPollAbort: AbortController | null = null;
  private draining = false;
  private readonly runs = new Map<string, UnitRun>();
  /** Finished units whose lease is kept until their result is delivered, by idempotency key. */
  private readonly awaitingDelivery = new Map<string, UnitRun>();
  /** The latest delivery state per key, for a turn row that is not finished yet when it comes. */
  private readonly deliveries = new Map<string, Delivery>();
  private readonly lostBeforeReport = new Map<string, string>();
  private readonly settled = new Set<() => void>();
  private offHeartbeat: (() => void) | null = null;
  /** Why claims are withheld now (logged once per change), or null while they are not. */
  private withheld: string | null = null;
  private lastRunError: string | null = null;
  private offAdmission: (() => void) | null = null;

  constructor(private readonly deps: WorkManagerDeps) {}

  private get strategy() {
    return this.deps.strategy ?? 'adaptive';
  }

  get activeCount(): number {
    return this.runs.size;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.draining = false;
    // A runtime whose host died may still run (no parent-death watch, or it escaped it):
    // stop it before its files (its MCP config among them) are swept.
    const leftovers = await this.deps.journal.leftovers();
    await this.stopOrphans(leftovers);
    const swept = await this.deps.executor.sweepStale();
    if (swept > 0) this.deps.log.info('removed leftovers of turns from a previous run', { count: swept });
    await this.deps.outbox.load();
    await this.recoverInterrupted(leftovers);
    this.deps.outbox.start();
    this.offHeartbeat = this.deps.host.onHeartbeat(() => this.afterHeartbeat());
    this.offAdmission = this.deps.admission?.onChange(() => this.wake()) ?? null;
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.offHeartbeat?.();
    this.offHeartbeat = null;
    this.offAdmission?.();
    this.offAdmission = null;
    this.stopClaiming();
    this.deps.outbox.stop();
    for (const run of this.awaitingDelivery.values()) run.releaseLease();
    this.awaitingDelivery.clear();
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

  /** Nudge after pause/resume or a settings change. */
  wake(): void {
    if (this.deps.autoClaim === false) return;
    if (!this.canClaim()) {
      this.stopClaiming();
      return;
    }
    if (this.useLongPoll()) void this.longPoll();
    else this.scheduleInteractive();
  }

  cancelAll(reason: string): number {
    for (const run of this.runs.values()) run.cancel(reason);
    return this.runs.size;
  }

  cancel(id: string, reason = 'canceled by the operator'): boolean {
    const run = this.runs.get(id);
    if (!run) return false;
    run.cancel(reason);
    return true;
  }

  /** Quitting: claim nothing more (running turns go on). */
  holdClaims(): void {
    this.draining = true;
    this.stopClaiming();
  }

  /** The quit was called off: claim again. */
  releaseClaims(): void {
    if (!this.draining) return;
    this.draining = false;
    if (this.running) this.wake();
  }

  /** Resolves once no unit runs or is being launched. */
  whenIdle(): Promise<void> {
    return this.idle();
  }

  /**
   * Quit: stop claiming, let running turns finish for up to `limitMs`, then cancel what
   * is left and wait for their results to be queued; finally try to deliver.
   */
  async drain(limitMs: number): Promise<{ canceled: number }> {
    this.draining = true;
    this.stopClaiming();
    let canceled = 0;
    if (this.runs.size > 0) {
      const deadline = new Promise<void>((resolve) => {
        const t = this.deps.clock.setTimeout(resolve, limitMs);
        void this.idle().then(() => {
          this.deps.clock.clearTimeout(t);
          resolve();
        });
      });
      await deadline;
      for (const run of this.runs.values()) {
        run.cancel('the runner is quitting');
        canceled++;
      }
      await this.idle();
    }
    await this.deps.outbox.flush();
    return { canceled };
  }

  private idle(): Promise<void> {
    if (this.runs.size === 0 && this.launching === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (this.runs.size === 0 && this.launching === 0) {
          this.settled.delete(check);
          resolve();
        }
      };
      this.settled.add(check);
    });
  }

  private canClaim(): boolean {
    return (
      this.running &&
      !this.draining &&
      !this.deps.host.paused() &&
      this.deps.host.credentials() !== null &&
      !this.deps.host.notReady?.() &&
      this.runs.size + this.launching < this.deps.host.config().maxSessions &&
      this.claimableRuntimes().length > 0 &&
      (this.deps.admission?.allowsClaim() ?? true)
    );
  }

  /**
   * The runtimes a claim may ask for: none in heartbeat-only mode ("Run work on this
   * machine" off, `RUNNER_EXECUTE=0`) or while no runtime is ready, as the seed claims
   * only when it finds an execution runtime. A change of reason is logged once.
   */
  claimableRuntimes(): RuntimeName[] {
    const config = this.deps.host.config();
    let reason: string | null = null;
    let ready: RuntimeName[] = [];
    if (!config.runWork) reason = 'heartbeat-only mode: "Run work on this machine" is off';
    else {
      const readiness = runtimeReadiness({ capabilities: this.deps.capabilities.peek(), preference: config.runtime, tripped: this.deps.breaker?.state });
      ready = readiness.ready;
      if (ready.length === 0) reason = `no runtime is ready (${describeNotReady(readiness)})`;
    }
    if (reason !== this.withheld) {
      if (reason) this.deps.log.info('claiming nothing', { reason });
      else if (this.withheld) this.deps.log.info('claiming work again', { runtimes: ready.join(',') });
      this.withheld = reason;
    }
    return ready;
  }

  private useLongPoll(): boolean {
    return this.strategy === 'adaptive' && this.deps.host.longPollMaxMs() !== null;
  }

  private afterHeartbeat(): void {
    this.deps.outbox.resume();
    if (this.deps.autoClaim === false) return;
    if (this.useLongPoll()) {
      void this.longPoll();
      return;
    }
    // The seed's cadence: a full claim right after each heartbeat, interactive-only between.
    void this.claimBurst(false).then(() => this.scheduleInteractive());
  }

  private scheduleInteractive(): void {
    if (this.pollTimer !== null || !this.running || this.useLongPoll()) return;
    this.pollTimer = this.deps.clock.setTimeout(() => {
      this.pollTimer = null;
      if (!this.running || this.useLongPoll()) return;
      void this.claimBurst(true).then(() => this.scheduleInteractive());
    }, this.deps.host.config().interactiveClaimMs);
  }

  private stopClaiming(): void {
    this.longPollAbort?.abort();
    this.longPollAbort = null;
    for (const timer of [this.pollTimer, this.retryTimer]) if (timer !== null) this.deps.clock.clearTimeout(timer);
    this.pollTimer = this.retryTimer = null;
  }

  /** Claims until the server has nothing or we are full; one claim request at a time. */
  private async claimBurst(interactiveOnly: boolean): Promise<void> {
    if (this.claiming || !this.canClaim() || this.retryTimer !== null) return;
    this.claiming = true;
    try {
      while (this.canClaim()) {
        const unit = await this.claimOnce({ interactiveOnly });
        if (!unit) break;
        if (this.strategy === 'seed') {
          // The seed claims one unit per tick and runs it to its end before the next tick.
          await this.launch(unit);
          break;
        }
        void this.launch(unit);
      }
    } finally {
      this.claiming = false;
    }
  }

  /**
   * `--once` as the seed: one full claim and, when a unit comes, run it to its end and try
   * to deliver its result. Claims nothing in heartbeat-only mode or without a ready runtime.
   */
  async runOne(): Promise<RunOneOutcome> {
    if (!this.canClaim()) return { claimed: false, error: null };
    this.lastRunError = null;
    this.claiming = true;
    let unit: ClaimedWork | null;
    try {
      unit = await this.claimOnce({ interactiveOnly: false });
    } finally {
      this.claiming = false;
    }
    if (this.retryTimer !== null) {
      this.deps.clock.clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
    if (!unit) return { claimed: false, error: this.lastRunError };
    await this.launch(unit);
    await this.deps.outbox.flush();
    const undelivered = this.deps.outbox.pending > 0;
    return { claimed: true, error: this.lastRunError ?? (undelivered ? 'the result could not be delivered yet (it stays queued)' : null) };
  }

  /** One outstanding long-poll claim while there is room; it answers the moment work exists. */
  private async longPoll(): Promise<void> {
    if (this.claiming || this.retryTimer !== null) return;
    this.claiming = true;
    try {
      while (this.canClaim() && this.useLongPoll()) {
        const abort = new AbortController();
        this.longPollAbort = abort;
        const unit = await this.claimOnce({ interactiveOnly: false, waitMs: this.deps.host.longPollMaxMs() ?? 0, signal: abort.signal });
        if (abort.signal.aborted || this.retryTimer !== null) break;
        if (unit) void this.launch(unit);
      }
    } finally {
      this.longPollAbort = null;
      this.claiming = false;
    }
  }

  private async claimOnce(options: { interactiveOnly: boolean; waitMs?: number; signal?: AbortSignal }): Promise<ClaimedWork | null> {
    const connector = this.deps.host.connector();
    const credentials = this.deps.host.credentials();
    if (!connector || !credentials) return null;
    const runtimes = this.claimableRuntimes();
    if (runtimes.length === 0) return null;
    try {
      const unit = await connector.claim(credentials, { ...options, runtimes });
      this.claimFailures = 0;
      if (unit) this.deps.log.info('claimed a unit', { unit: unit.id, kind: unit.kind, brain: unit.brain ?? 'auto' });
      return unit;
    } catch (error) {
      if (options.signal?.aborted) return null;
      if (isConnectorError(error, 'unauthorized')) {
        void this.deps.host.markRevoked();
        return null;
      }
      this.lastRunError = `claim failed: ${errorText(error)}`;
      const delay = backoffDelay(this.claimFailures++, CLAIM_BACKOFF, this.deps.random);
      this.deps.log.warn('claim failed; backing off', { error: errorText(error), retryInMs: delay });
      this.retryTimer = this.deps.clock.setTimeout(() => {
        this.retryTimer = null;
        this.wake();
      }, delay);
      return null;
    }
  }

  private async launch(unit: ClaimedWork): Promise<void> {
    const connector = this.deps.host.connector();
    const credentials = this.deps.host.credentials();
    const controlPlaneUrl = this.deps.host.controlPlaneUrl();
    if (!connector || !credentials || !controlPlaneUrl) return;
    this.launching++;
    const now = new Date(this.deps.clock.now()).toISOString();
    const view: TurnView = {
      id: unit.id,
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
    const capabilities = await this.deps.capabilities.get();
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
    const run = new UnitRun(unit, {
      clock: this.deps.clock,
      log: this.deps.log.child('unit'),
      connector,
      credentials,
      tenantId: this.deps.host.tenantId(),
      controlPlaneUrl,
      runtimePreference: this.deps.host.config().runtime,
      capabilities,
      tripped: this.deps.breaker?.state ?? {},
      executor: this.deps.executor,
      resume: this.deps.resume,
      knownSecrets: this.deps.knownSecrets,
      ...(this.deps.runtimeEnv ? { env: this.deps.runtimeEnv } : {}),
      ...(this.deps.admission ? { admits: (runtime: 'claude' | 'codex') => this.deps.admission!.admits(runtime) } : {}),
      patch: (patch) => this.deps.registry.patch(unit.id, patch),
      onRevoked: () => void this.deps.host.markRevoked(),
      recordRunning: (runtime) => {
        note = { ...note, runtime };
        return this.deps.journal.record(note);
      },
      // The note learns the process (pid and start time): a restart can then stop that very process.
      onSpawn: (pid) => {
        spawnNoted = spawnNoted
          .then(async () => {
            const processStart = await processStartToken(pid);
            note = { ...note, pid, processStart };
            await this.deps.journal.record(note);
          })
          .catch((error: unknown) => this.deps.log.warn('could not note the runtime process in the journal', { unit: unit.id, error: errorText(error) }));
      },
    });
    this.runs.set(unit.id, run);
    this.launching--;
    this.deps.host.setActive(this.runs.size);
    const releaseToken = unit.mcp ? this.deps.registerTurnSecret?.(unit.mcp.token) : undefined;
    try {
      const outcome = await run.run();
      if (outcome?.refused) this.lastRunError = outcome.refused;
      let delivery: Delivery | null = null;
      if (outcome?.result) {
        const key = outcome.result.idempotency_key;
        this.awaitingDelivery.set(key, run);
        delivery = { state: 'sending', attempts: 0, since: new Date(this.deps.clock.now()).toISOString(), reason: null };
        await this.deps.outbox.enqueue({ runnerId: credentials.runnerId, unit: { id: unit.id, kind: unit.kind }, result: outcome.result });
        this.deps.log.info('unit finished', { unit: unit.id, status: outcome.result.status });
      } else run.releaseLease();
      // A note of the process still being written must land before the note is removed.
      await spawnNoted;
      await this.deps.journal.clear(unit.id);
      if (outcome?.result) this.learnFromOutcome({ result: outcome.result, view: outcome.view }, Date.parse(now));
      const key = run.key;
      delivery = this.deliveries.get(key) ?? delivery;
      this.deliveries.delete(key);
      this.deps.registry.finish(unit.id, {
        ...(outcome?.view ?? failedView('revoked')),
        endedAt: new Date(this.deps.clock.now()).toISOString(),
        delivery,
      });
    } catch (error) {
      // Only the disk can fail here; the journal keeps the unit for the restart path.
      run.releaseLease();
      this.awaitingDelivery.delete(run.key);
      this.deps.log.error('could not record the result of a unit', { unit: unit.id, error: errorText(error) });
      this.deps.registry.finish(unit.id, { ...failedView('the result could not be saved'), endedAt: new Date(this.deps.clock.now()).toISOString() });
    } finally {
      releaseToken?.();
      this.runs.delete(unit.id);
      this.deps.host.setActive(this.runs.size);
      for (const check of [...this.settled]) check();
      // A slot is free: ours claims again now; the seed waits for its next tick.
      if (this.strategy === 'adaptive' && this.running) this.wake();
    }
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
    if (changed || notice) this.deps.host.readinessChanged?.(notice);
  }

  /** Stops the recorded process groups that are still the very processes we started. */
  private async stopOrphans(records: RunningRecord[]): Promise<void> {
    for (const record of records) {
      if (record.pid === null || !record.processStart) continue;
      const now = await processStartToken(record.pid);
      if (now !== record.processStart) continue; // gone, or the pid belongs to another process now
      const result = await terminateTree(record.pid, { graceMs: 3_000, clock: this.deps.clock, rootReaped: false });
      this.deps.log.warn('stopped a runtime left running by the previous run', {
        unit: record.unit.id,
        pid: record.pid,
        signaled: result.signaled.length,
        survivors: result.survivors.length,
      });
    }
  }

  /** Units that were running when the last process died are reported failed, once. */
  private async recoverInterrupted(records: RunningRecord[]): Promise<void> {
    for (const record of records) {
      await this.deps.outbox.enqueue({
        runnerId: record.runnerId,
        unit: record.unit,
        result: failedUnit({ id: record.unit.id, attempt: record.attempt }, 'runner restarted', record.runtime).result,
      });
      await this.deps.journal.clear(record.unit.id);
      this.deps.registry.addFinished({
        id: record.unit.id,
        kind: record.unit.kind,
        runtime: record.runtime,
        seat: record.seat ?? null,
        buildRequestId: record.buildRequestId ?? null,
        startedAt: record.startedAt,
        endedAt: new Date(this.deps.clock.now()).toISOString(),
        phase: 'failed',
        pid: record.pid,
        tokens: null,
        costUsd: null,
        outputTail: '',
        summary: 'runner restarted',
        lease: null,
        reason: 'interrupted by a restart: reported failed',
        delivery: { state: 'sending', attempts: 0, since: new Date(this.deps.clock.now()).toISOString(), reason: null },
      });
      this.deps.log.warn('a unit was running when the runner stopped; reported it failed', { unit: record.unit.id });
    }
  }
}
