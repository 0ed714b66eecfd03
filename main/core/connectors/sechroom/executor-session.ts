import { errorText } from '../../../../shared/errors';
import type { TaskCard, Verdict } from '../../../../shared/protocol/sechroom';
import type { Clock, Logger, TimerHandle } from '../../ports';
import { backoffDelay } from '../../runner/backoff';
import { isConnectorError } from '../errors';
import { ClaimPath, type ClaimedTask } from './claim-path';
import { CloseoutCollector, closeoutText, closeoutTitle, verdictFor, type LifecycleSignal } from './closeout-tools';
import { laneOf, refreshAfterMs, registrationInput, type InstanceSettings } from './instance-settings';
import type { InflightJournal } from './inflight-journal';
import { LeaseKeeper, type LeaseLoss } from './lease-keeper';
import { BEGIN_TURN_TEXT, taskInstructions, taskTitle, type LoadedPack } from './prompt';
import { AuthExpiredError } from './sechroom-auth';
import type { OutboxDelivery, SechroomOutbox } from './sechroom-outbox';
import type { AdmissionPort, RootReadyPort, SechroomTurnRunner, TurnDetail, TurnOutcome, TurnUsage } from './turn-runner';
import { turnTelemetry } from './turn-telemetry';
import type { WorkLayerClient } from './work-layer-client';

const CLAIM_BACKOFF = { baseMs: 1_000, capMs: 60_000 };
const CARD_ATTEMPTS = 3;

export type WorkLayerPort = Pick<
  WorkLayerClient,
  'register' | 'refreshInstance' | 'deregister' | 'offers' | 'claimNext' | 'claimDirect' | 'card' | 'contextPack' | 'heartbeat'
>;

export interface ExecutorSessionDeps {
  settings: InstanceSettings;
  client: WorkLayerPort;
  turns: SechroomTurnRunner;
  /** Durable: completions and telemetry go through it. The caller loads it; the session starts and stops it. */
  outbox: SechroomOutbox;
  clock: Clock;
  log: Logger;
  admission?: AdmissionPort;
  root?: RootReadyPort;
  /** Notes of claimed tasks on disk, so a restart can say which turns died with the process. */
  journal?: InflightJournal;
  /** `--once`: stop after the first claimed task. */
  once?: boolean;
  /** [v1] Ask the Work Layer to hold an empty offers read this long (0: poll like the seed). */
  offerWaitMs?: number;
  random?: () => number;
  onTurn?(record: SechroomTurnRecord): void;
  onState?(state: SessionStatus): void;
}

export type TurnRecordState = 'claimed' | 'running' | 'completing' | 'completed' | 'abandoned' | 'canceled' | 'rejected';

export type { ClaimedTask } from './claim-path';

/** What the Turns view shows for a Sechroom task. */
export interface SechroomTurnRecord {
  memoryId: string;
  leaseId: string;
  title: string | null;
  decompositionId: string | null;
  state: TurnRecordState;
  verdict: Verdict | null;
  /** The last lifecycle signal (`phase:status`), as progress. */
  phase: string | null;
  lease: 'held' | 'cancel_requested' | 'ended' | 'left_to_expire' | 'completed';
  completionMemoryId: string | null;
  note: string | null;
  warnings: string[];
}

export type SessionStatus =
  | { state: 'registering' }
  | { state: 'live'; instanceId: string }
  | { state: 'deferred'; instanceId: string; reason: string }
  | { state: 'backing_off'; instanceId: string | null; message: string; retryAt: string }
  | { state: 'auth_expired'; message: string; remedy: AuthExpiredError['remedy'] }
  | { state: 'stopped' };

export interface SessionSummary {
  processed: number;
  completed: number;
  abandoned: number;
}

/**
 * One Sechroom executor instance's loop (seed B5/B6), reading top to bottom: register →
 * [admission, ready root] → offers → claim-next → direct claim on a stale head → heartbeat
 * from the claim → card (+ pack) → turn → verdict → completion and telemetry through the
 * durable outbox → deregister on stop. A claim-path error backs off and goes on (the seed's
 * run dies, B15.5); only a refused sign-in stops the loop.
 */
export class ExecutorSession {
  private instanceId: string | null = null;
  private stopping = false;
  private running: Promise<SessionSummary> | null = null;
  private sleepers = new Set<() => void>();
  private refreshTimer: TimerHandle | null = null;
  private claimFailures = 0;
  private readonly claims: ClaimPath;
  private turn: AbortController | null = null;
  private drainTimer: TimerHandle | null = null;
  private readonly records = new Map<string, SechroomTurnRecord>();
  /** Lease heartbeats by lease id: from the claim until the completion has landed (or the lease is let go). */
  private readonly keepers = new Map<string, LeaseKeeper>();
  private claimStartedAt = 0;
  private readonly summary: SessionSummary = { processed: 0, completed: 0, abandoned: 0 };

  constructor(private readonly deps: ExecutorSessionDeps) {
    this.claims = new ClaimPath({
      client: deps.client,
      log: deps.log,
      ...(deps.offerWaitMs ? { offerWaitMs: deps.offerWaitMs } : {}),
      sleep: (ms) => this.sleep(ms),
      stopping: () => this.stopping,
    });
  }

  get instance(): string | null {
    return this.instanceId;
  }

  /** True while the loop waits on the clock (a poll, a backoff, a deferral) and on nothing else. */
  get idle(): boolean {
    return this.sleepers.size > 0;
  }

  get turnRecords(): SechroomTurnRecord[] {
    return [...this.records.values()];
  }

  /** Starts the loop; resolves when it ends (after `stop()`, `--once`, or a refused sign-in). */
  run(): Promise<SessionSummary> {
    this.running ??= this.loop();
    return this.running;
  }

  /**
   * Stops claiming; a turn in flight gets `drainTimeoutSeconds` to finish, then is
   * interrupted (and its lease left to expire). Resolves once deregistered.
   */
  async stop(): Promise<SessionSummary> {
    if (!this.stopping) {
      this.stopping = true;
      this.deps.log.info('shutdown requested — finishing up');
      this.wake();
      if (this.turn) {
        const turn = this.turn;
        this.drainTimer = this.deps.clock.setTimeout(() => turn.abort(new Error('drain timeout')), this.deps.settings.drainTimeoutSeconds * 1000);
      }
    }
    if (this.running) return this.running;
    this.state({ state: 'stopped' });
    return this.summary;
  }

  private async loop(): Promise<SessionSummary> {
    const { settings, log } = this.deps;
    this.deps.outbox.start();
    try {
      this.keepPendingCompletions();
      await this.reportLeftovers();
      if (!(await this.register())) return this.summary;
      log.info(`driven executor live — instance ${settings.instanceKey}, lane ${laneOf(settings)}${this.deps.once ? ', single-task mode' : ''}`);
      let deferred = false;
      while (!this.stopping) {
        if (this.deps.admission) {
          const admission = await this.deps.admission
            .check()
            .catch((error: unknown) => ({ ok: false as const, reason: `admission check failed: ${errorText(error)}`, retryAt: null }));
          if (this.stopping) break;
          if (!admission.ok) {
            if (!deferred) log.warn(`ADMISSION DEFERRED — not claiming: ${admission.reason}`);
            deferred = true;
            this.state({ state: 'deferred', instanceId: this.instanceId!, reason: admission.reason });
            const until = admission.retryAt ? Math.max(0, admission.retryAt - this.deps.clock.now()) : Infinity;
            await this.sleep(Math.min(until, settings.pollIntervalSeconds * 1000));
            continue;
          }
          if (deferred) {
            deferred = false;
            log.info('admission recovered — resuming claims');
            this.state({ state: 'live', instanceId: this.instanceId! });
          }
        }
        if (this.deps.root) {
          const ready = await this.deps.root.check().catch((error: unknown) => ({ ok: false as const, reason: `root check failed: ${errorText(error)}` }));
          if (this.stopping) break;
          if (!ready.ok) {
            log.warn(`root not ready — not claiming: ${ready.reason}`);
            await this.sleep(settings.pollIntervalSeconds * 1000);
            continue;
          }
        }
        let claim: ClaimedTask | null;
        this.claimStartedAt = this.deps.clock.now();
        try {
          claim = await this.claims.next(this.instanceId!);
        } catch (error) {
          if (error instanceof AuthExpiredError) return this.authExpired(error);
          await this.claimBackoff(error);
          continue;
        }
        if (this.claimFailures > 0) {
          this.claimFailures = 0;
          this.state({ state: 'live', instanceId: this.instanceId! });
        }
        if (!claim) {
          // A held offers read [v1] already waited; the seed's plain poll waits here.
          const held = this.deps.offerWaitMs ? this.deps.clock.now() - this.claimStartedAt >= this.deps.offerWaitMs / 2 : false;
          if (!this.stopping && !held) await this.sleep(settings.pollIntervalSeconds * 1000);
          continue;
        }
        try {
          await this.process(claim);
        } catch (error) {
          if (error instanceof AuthExpiredError) return this.authExpired(error);
          // Not the Work Layer's doing (e.g. the outbox could not write): say so, and go on after a pause.
          log.error(`task ${claim.memoryId} failed in the executor: ${errorText(error)}`);
          await this.claimBackoff(error);
        }
        if (this.deps.once) break;
      }
      log.info(`done — processed ${this.summary.processed}, completed ${this.summary.completed}, abandoned ${this.summary.abandoned}`);
      return this.summary;
    } finally {
      await this.shutDown();
    }
  }

  /** Turns a previous process claimed and never finished: their leases expire; their records say so. */
  private async reportLeftovers(): Promise<void> {
    const notes = (await this.deps.journal?.takeLeftovers(this.deps.settings.instanceKey).catch(() => [])) ?? [];
    for (const note of notes) {
      const reason = `Runner Tray stopped during the turn (claimed ${note.claimedAt})`;
      const record: SechroomTurnRecord = {
        memoryId: note.memoryId,
        leaseId: note.leaseId,
        title: note.title,
        decompositionId: null,
        state: 'abandoned',
        verdict: null,
        phase: null,
        lease: 'left_to_expire',
        completionMemoryId: null,
        note: `ABANDONED ${note.memoryId}: ${reason} — lease will expire and the task re-offers (work may re-run).`,
        warnings: [],
      };
      this.records.set(note.leaseId, record);
      this.deps.log.warn(record.note!);
      this.deps.onTurn?.({ ...record });
    }
  }

  // ---- the advertisement (E1, E2, E10) ----

  /** Registers, backing off on trouble (the seed's run aborts); false when stopped or signed out first. */
  private async register(): Promise<boolean> {
    this.state({ state: 'registering' });
    for (let attempt = 0; !this.stopping; attempt++) {
      try {
        const instance = await this.deps.client.register(registrationInput(this.deps.settings));
        this.instanceId = instance.id;
        this.state({ state: 'live', instanceId: instance.id });
        this.scheduleRefresh();
        return !this.stopping;
      } catch (error) {
        if (error instanceof AuthExpiredError) {
          this.authExpired(error);
          return false;
        }
        const delay = backoffDelay(attempt, CLAIM_BACKOFF, this.deps.random);
        this.deps.log.warn(`registration failed (${errorText(error)}) — retrying in ${delay} ms`);
        this.state({
          state: 'backing_off',
          instanceId: null,
          message: `registration failed: ${errorText(error)}`,
          retryAt: new Date(this.deps.clock.now() + delay).toISOString(),
        });
        await this.sleep(delay);
      }
    }
    return false;
  }

  private scheduleRefresh(): void {
    this.refreshTimer = this.deps.clock.setTimeout(() => {
      this.refreshTimer = null;
      void this.refreshAdvertisement().finally(() => {
        if (!this.stopping) this.scheduleRefresh();
      });
    }, refreshAfterMs(this.deps.settings));
  }

  private async refreshAdvertisement(): Promise<void> {
    if (!this.instanceId) return;
    try {
      await this.deps.client.refreshInstance(this.instanceId, this.deps.settings.ttlSeconds);
    } catch (error) {
      this.deps.log.warn(`advertisement refresh failed: ${errorText(error)}`);
      // Deregistered behind our back (404 unknown_instance): advertise again under the same key.
      if (isConnectorError(error, 'not_found') && !this.stopping) {
        const instance = await this.deps.client.register(registrationInput(this.deps.settings)).catch(() => null);
        if (instance) this.instanceId = instance.id;
      }
    }
  }

  private async shutDown(): Promise<void> {
    if (this.refreshTimer !== null) this.deps.clock.clearTimeout(this.refreshTimer);
    this.refreshTimer = null;
    if (this.instanceId) {
      try {
        await this.deps.client.deregister(this.instanceId);
        this.deps.log.info('deregistered');
      } catch (error) {
        this.deps.log.warn(`deregister failed (${errorText(error)}) — advertisement will expire by TTL`);
      }
    }
    // One last delivery pass; whatever is left stays on disk for the next start (which beats its lease again).
    await this.deps.outbox.flush().catch(() => undefined);
    this.deps.outbox.stop();
    for (const leaseId of [...this.keepers.keys()]) this.letGo(leaseId);
    this.state({ state: 'stopped' });
  }

  // ---- the claim (E3, E4, E5) ----

  private async claimBackoff(error: unknown): Promise<void> {
    const delay = backoffDelay(this.claimFailures++, CLAIM_BACKOFF, this.deps.random);
    this.deps.log.warn(`claim failed (${errorText(error)}) — backing off ${delay} ms and going on`);
    this.state({
      state: 'backing_off',
      instanceId: this.instanceId,
      message: `claim failed: ${errorText(error)}`,
      retryAt: new Date(this.deps.clock.now() + delay).toISOString(),
    });
    await this.sleep(delay);
  }

  // ---- one task ----

  private async process(claim: ClaimedTask): Promise<void> {
    const { settings, log, clock } = this.deps;
    this.summary.processed++;
    log.info(`claimed ${claim.memoryId} (lease ${claim.leaseId})`);
    const record = this.record(claim);
    const turn = new AbortController();
    this.turn = turn;
    let loss: LeaseLoss | null = null;
    // The heartbeat starts at the claim, so a slow card cannot cost the lease (B6.3), and
    // goes on until the completion has landed, so a completion retried through an outage
    // is not refused 409 lease_expired.
    this.keep(claim, (lost) => {
      loss = lost;
      this.update(record, { lease: lost.kind === 'cancel_requested' ? 'cancel_requested' : 'ended' });
      if (record.state !== 'claimed' && record.state !== 'running') return;
      log.warn(
        lost.kind === 'cancel_requested'
          ? `cancel requested for ${claim.memoryId}${lost.reason ? ` (${lost.reason})` : ''} — interrupting the turn`
          : `lease of ${claim.memoryId} ${lost.status} — interrupting the turn`,
      );
      turn.abort(new Error(lost.kind));
    });
    await this.deps.journal
      ?.begin({
        instanceKey: settings.instanceKey,
        memoryId: claim.memoryId,
        leaseId: claim.leaseId,
        title: null,
        claimedAt: new Date(clock.now()).toISOString(),
      })
      .catch((error: unknown) => log.warn(`could not note the claimed task on disk: ${errorText(error)}`));
    try {
      await this.runClaimed(claim, record, turn, () => loss);
    } catch (error) {
      if (record.state === 'claimed' || record.state === 'running') this.abandon(record, errorText(error));
      throw error;
    } finally {
      // A completion waiting in the outbox keeps its heartbeat; `delivered()` lets go of it.
      if (record.state !== 'completing') this.letGo(claim.leaseId);
      await this.deps.journal?.end(claim.leaseId).catch(() => undefined);
      this.turn = null;
      if (this.drainTimer !== null) clock.clearTimeout(this.drainTimer);
      this.drainTimer = null;
    }
  }

  private keep(lease: { leaseId: string; claimToken: string; tokenVersion: number }, onLoss: (loss: LeaseLoss) => void): void {
    const { clock, log, settings } = this.deps;
    const keeper = new LeaseKeeper({
      client: this.deps.client,
      clock,
      log,
      leaseId: lease.leaseId,
      claimToken: lease.claimToken,
      tokenVersion: lease.tokenVersion,
      intervalMs: settings.heartbeatIntervalSeconds * 1000,
      ...(this.deps.random ? { random: this.deps.random } : {}),
      onLoss,
    });
    this.keepers.get(lease.leaseId)?.stop();
    this.keepers.set(lease.leaseId, keeper);
    keeper.start();
  }

  private letGo(leaseId: string): void {
    this.keepers.get(leaseId)?.stop();
    this.keepers.delete(leaseId);
  }

  /** Completions a previous process left in the outbox: their leases are beaten again until they land. */
  private keepPendingCompletions(): void {
    for (const entry of this.deps.outbox.list()) {
      if (entry.kind !== 'complete' || this.keepers.has(entry.leaseId)) continue;
      this.keep({ leaseId: entry.leaseId, claimToken: entry.input.claimToken, tokenVersion: entry.input.tokenVersion ?? 1 }, () => this.letGo(entry.leaseId));
    }
  }

  /** Card → turn → completion, while the keeper holds the lease. */
  private async runClaimed(claim: ClaimedTask, record: SechroomTurnRecord, turn: AbortController, lossOf: () => LeaseLoss | null): Promise<void> {
    const task = await this.loadTask(claim, record, turn.signal);
    if (!task || turn.signal.aborted) return this.endWithoutCompletion(record, lossOf(), task ? 'interrupted before the turn started' : null);
    const outcome = await this.runTurn(claim, record, task, turn.signal);
    const loss = lossOf();
    if (loss || outcome.result.status === 'canceled')
      return this.endWithoutCompletion(record, loss, outcome.result.status === 'canceled' ? outcome.result.reason : null);
    await this.finish(claim, record, task, outcome);
  }

  /** The card, then its pack (a pack that fails: the card alone, with the seed's warning). Null: abandoned. */
  private async loadTask(claim: ClaimedTask, record: SechroomTurnRecord, signal: AbortSignal): Promise<{ card: TaskCard; pack: LoadedPack | null } | null> {
    let card: TaskCard | null = null;
    for (let attempt = 0; !card; attempt++) {
      try {
        card = await this.deps.client.card(claim.memoryId);
      } catch (error) {
        if (error instanceof AuthExpiredError) throw error;
        const retryable = isConnectorError(error) && error.retryable;
        if (!retryable || attempt + 1 >= CARD_ATTEMPTS || signal.aborted || this.stopping) {
          this.abandon(record, `task card failed to load (${errorText(error)})`);
          return null;
        }
        await this.sleep(backoffDelay(attempt, CLAIM_BACKOFF, this.deps.random));
      }
    }
    this.update(record, { title: taskTitle(card), decompositionId: record.decompositionId ?? card.decompositionId ?? null });
    const pointer = card.contextPack;
    if (!pointer) return { card, pack: null };
    try {
      const pkg = await this.deps.client.contextPack(pointer.slug, pointer.version);
      return { card, pack: { slug: pointer.slug, version: pointer.version, components: pkg.components } };
    } catch (error) {
      if (error instanceof AuthExpiredError) throw error;
      const warning = `warning: task ${card.taskId} context pack (${pointer.slug}@${pointer.version}) failed to resolve (${errorText(error)}) — running on card body only`;
      this.deps.log.warn(warning);
      this.update(record, { warnings: [...record.warnings, warning] });
      return { card, pack: null };
    }
  }

  private async runTurn(claim: ClaimedTask, record: SechroomTurnRecord, task: { card: TaskCard; pack: LoadedPack | null }, signal: AbortSignal) {
    const { settings } = this.deps;
    const details: TurnDetail[] = [];
    let usage: TurnUsage | null = null;
    const tools = new CloseoutCollector((signal: LifecycleSignal) => {
      details.push({ kind: 'Parsed', text: `phase:${signal.phase}:${signal.status}` });
      this.deps.log.info(`lifecycle ${signal.phase}:${signal.status} — ${signal.summary}`);
      this.update(record, { phase: `${signal.phase}:${signal.status}` });
    });
    this.update(record, { state: 'running' });
    let result: TurnOutcome;
    try {
      result = await this.deps.turns.run({
        taskId: claim.memoryId,
        leaseId: claim.leaseId,
        title: record.title ?? claim.memoryId,
        instructions: taskInstructions(task.card, task.pack),
        input: BEGIN_TURN_TEXT,
        tools,
        cwd: settings.root,
        model: settings.model ?? null,
        sandbox: settings.sandbox,
        turnTimeoutMs: settings.turnTimeoutSeconds * 1000,
        resumeTurnTimeoutMs: settings.resumeTurnTimeoutSeconds * 1000,
        signal,
        onDetail: (detail) => details.push(detail),
        onUsage: (u) => {
          usage = u;
        },
      });
    } catch (error) {
      result = { status: 'crashed', reason: errorText(error) };
    }
    if (signal.aborted && result.status !== 'canceled') result = { status: 'canceled', reason: errorText(signal.reason) };
    const finalUsage: TurnUsage | null = result.status === 'completed' ? (result.usage ?? usage) : usage;
    return { result, tools, details, usage: finalUsage };
  }

  private async finish(
    claim: ClaimedTask,
    record: SechroomTurnRecord,
    task: { card: TaskCard },
    turn: Awaited<ReturnType<ExecutorSession['runTurn']>>,
  ): Promise<void> {
    const { result, tools } = turn;
    const packet = tools.closeout;
    // A timed-out turn that did close out counts as completed [seed B8.4].
    if (result.status === 'crashed' || (result.status === 'timeout' && !packet)) {
      return this.abandon(record, result.status === 'timeout' ? 'turn timed out' : result.reason);
    }
    const lastAgentMessage = result.status === 'completed' || result.status === 'timeout' ? (result.lastAgentMessage ?? '') : '';
    const turnId = result.status === 'completed' || result.status === 'timeout' ? (result.turnId ?? null) : null;
    const verdict = verdictFor(packet?.terminal_status);
    const title = taskTitle(task.card);
    const instanceId = this.instanceId!;
    await this.deps.outbox.enqueue({
      kind: 'complete',
      instanceId,
      memoryId: claim.memoryId,
      leaseId: claim.leaseId,
      input: {
        executorInstanceId: instanceId,
        claimToken: claim.claimToken,
        tokenVersion: claim.tokenVersion,
        verdict,
        text: closeoutText(packet, lastAgentMessage),
        source: laneOf(this.deps.settings),
        title: closeoutTitle(title),
      },
    });
    this.update(record, { state: 'completing', verdict, lease: 'held' });
    const decompositionId = record.decompositionId;
    if (!decompositionId) {
      this.deps.log.info('telemetry absent: claimed task carried no wlp-decomposition tag');
      return;
    }
    const events = turnTelemetry({
      taskId: claim.memoryId,
      leaseId: claim.leaseId,
      executorInstanceId: instanceId,
      turnId,
      verdict,
      summary: packet?.summary ?? null,
      details: turn.details,
      usage: turn.usage,
      model: this.deps.settings.model ?? null,
    });
    await this.deps.outbox.enqueue({ kind: 'telemetry', instanceId, memoryId: claim.memoryId, leaseId: claim.leaseId, decompositionId, events });
  }

  /** The seed's ABANDONED line, in the log and in the turn's record; the lease is left to expire. */
  private abandon(record: SechroomTurnRecord, reason: string): void {
    this.summary.abandoned++;
    const note = `ABANDONED ${record.memoryId}: ${reason} — lease will expire and the task re-offers (work may re-run).`;
    this.deps.log.warn(note);
    this.update(record, { state: 'abandoned', lease: 'left_to_expire', note });
  }

  private endWithoutCompletion(record: SechroomTurnRecord, loss: LeaseLoss | null, interrupted: string | null): void {
    if (loss?.kind === 'cancel_requested') {
      this.summary.abandoned++;
      const note = `canceled by the Work Layer${loss.reason ? ` (${loss.reason})` : ''} — turn interrupted, no completion sent; the lease is left to expire`;
      this.deps.log.warn(`${record.memoryId}: ${note}`);
      this.update(record, { state: 'canceled', lease: 'left_to_expire', note });
      return;
    }
    if (loss) {
      this.summary.abandoned++;
      const note = `lease ${loss.status} during the turn — turn interrupted, nothing to complete`;
      this.deps.log.warn(`${record.memoryId}: ${note}`);
      this.update(record, { state: 'abandoned', lease: 'ended', note });
      return;
    }
    if (record.state === 'abandoned') return;
    this.abandon(record, interrupted ?? 'interrupted');
  }

  // ---- records, state, outbox results ----

  /** The outbox reports each completion's fate; the owner forwards it here. */
  delivered(delivery: OutboxDelivery): void {
    if (delivery.kind !== 'complete') return;
    this.letGo(delivery.entry.leaseId);
    const record = this.records.get(delivery.entry.leaseId);
    if (delivery.outcome === 'rejected') {
      this.summary.abandoned++;
      if (record) this.update(record, { state: 'rejected', lease: 'ended', note: delivery.message });
      return;
    }
    this.summary.completed++;
    if (record) this.update(record, { state: 'completed', lease: 'completed', completionMemoryId: delivery.completionMemoryId });
  }

  private record(claim: ClaimedTask): SechroomTurnRecord {
    const record: SechroomTurnRecord = {
      memoryId: claim.memoryId,
      leaseId: claim.leaseId,
      title: null,
      decompositionId: claim.decompositionId,
      state: 'claimed',
      verdict: null,
      phase: null,
      lease: 'held',
      completionMemoryId: null,
      note: null,
      warnings: [],
    };
    this.records.set(claim.leaseId, record);
    this.deps.onTurn?.({ ...record });
    return record;
  }

  private update(record: SechroomTurnRecord, patch: Partial<SechroomTurnRecord>): void {
    Object.assign(record, patch);
    this.deps.onTurn?.({ ...record, warnings: [...record.warnings] });
  }

  private authExpired(error: AuthExpiredError): SessionSummary {
    this.deps.log.error(`auth expired: ${error.message}`);
    this.state({ state: 'auth_expired', message: error.message, remedy: error.remedy });
    this.stopping = true;
    return this.summary;
  }

  private state(state: SessionStatus): void {
    this.deps.onState?.(state);
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.sleepers.delete(done);
        this.deps.clock.clearTimeout(timer);
        resolve();
      };
      const timer = this.deps.clock.setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  private wake(): void {
    for (const done of [...this.sleepers]) done();
  }
}
