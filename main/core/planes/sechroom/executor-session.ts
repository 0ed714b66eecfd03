import { errorText } from '../../../../shared/errors';
import type { TaskCard } from '../../../../shared/protocol/sechroom';
import type { TimerHandle } from '../../base/ports';
import { backoffDelay } from '../../base/backoff';
import { ClaimPath, type ClaimedTask } from './claim-path';
import { laneOf } from '../../../../shared/sechroom-instance-settings';
import { Advertisement } from './advertisement';
import { ClaimGates } from './claim-gates';
import { claimBackoffState } from './claim-failure';
import { LeaseKeepers, type LeaseLoss } from './lease-keeper';
import { taskTitle } from './prompt';
import { AuthExpiredError } from './sechroom-auth';
import type { OutboxDelivery } from './sechroom-outbox';
import { runTaskTurn, type TaskTurn } from './task-turn';
import { deliverCompleted, type TaskWorkspace } from './task-workspace';
import { turnEnd } from './completion';
import { loadTask, type TaskLoaderDeps } from './task-loader';
import { LoopSleep } from './loop-sleep';
import type { ExecutorSessionDeps, SessionStatus } from './executor-contract';
import { MACHINE_FULL, takeMachineSlot, type MachineSlot } from './machine-slot';
import { TurnRecords, type SechroomTurnRecord, type SessionSummary } from './turn-records';

const CLAIM_BACKOFF = { baseMs: 1_000, capMs: 60_000 };

export type { ClaimedTask } from './claim-path';
export type { SechroomTurnRecord, SessionSummary } from './turn-records';
export type { ExecutorSessionDeps, SessionStatus, WorkLayerPort } from './executor-contract';

/**
 * One Sechroom executor instance's loop (seed B5/B6), reading top to bottom: register →
 * [admission, ready root] → offers → claim-next → direct claim on a stale head → heartbeat
 * from the claim → card (+ pack) → turn → verdict → completion and telemetry through the
 * durable outbox → deregister on stop. A claim-path error backs off and goes on (the seed's
 * run dies, B15.5); only a refused sign-in stops the loop.
 */
export class ExecutorSession {
  private readonly advertisement: Advertisement;
  private stopping = false;
  private running: Promise<SessionSummary> | null = null;
  private readonly sleeper: LoopSleep;
  private claimFailures = 0;
  private readonly claims: ClaimPath;
  private turn: AbortController | null = null;
  /** The offers read in flight: a stop or a pause ends its hold at once. */
  private read: AbortController | null = null;
  private turnLease: string | null = null;
  private drainTimer: TimerHandle | null = null;
  private readonly records: TurnRecords;
  private paused = false;
  private expired = false;
  /** Lease heartbeats by lease id: from the claim until the completion has landed (or the lease is let go). */
  private readonly keepers: LeaseKeepers;
  private readonly loader: TaskLoaderDeps;
  private readonly gates: ClaimGates;

  constructor(private readonly deps: ExecutorSessionDeps) {
    const { client, clock, log } = deps;
    this.sleeper = new LoopSleep(clock, () => this.stopping);
    // How every part of the loop waits: on the session's clock, cut short by a stop.
    const waits = {
      backoff: CLAIM_BACKOFF,
      ...(deps.random ? { random: deps.random } : {}),
      sleep: (ms: number) => this.sleeper.sleep(ms),
      stopping: () => this.stopping,
    };
    this.loader = { client, log, ...waits };
    this.gates = new ClaimGates({
      admission: deps.admission,
      root: deps.root,
      clock,
      log,
      pollMs: deps.settings.pollIntervalSeconds * 1000,
      paused: () => this.paused,
      onChange: (gate) => this.state(gate.state === 'deferred' ? { ...gate, instanceId: this.instanceId } : { state: gate.state, instanceId: this.instanceId }),
    });
    this.advertisement = new Advertisement({
      client,
      settings: deps.settings,
      clock,
      log,
      ...waits,
      onBackoff: (message, retryAt) => this.state({ state: 'backing_off', instanceId: null, message, retryAt: new Date(retryAt).toISOString() }),
    });
    this.keepers = new LeaseKeepers({
      client: deps.client,
      clock: deps.clock,
      log: deps.log,
      intervalMs: deps.settings.heartbeatIntervalSeconds * 1000,
      ...(deps.random ? { random: deps.random } : {}),
    });
    this.records = new TurnRecords({ clock: deps.clock, log: deps.log, ...(deps.onTurn ? { onTurn: deps.onTurn } : {}) });
    this.claims = new ClaimPath({ client, log, ...(deps.offerWaitMs ? { offerWaitMs: deps.offerWaitMs } : {}), ...waits });
  }

  /** Set once registered (the loop claims only then). */
  private get instanceId(): string {
    return this.advertisement.id!;
  }

  get instance(): string | null {
    return this.advertisement.id;
  }

  /** True while the loop waits on the clock (a poll, a backoff, a deferral) and on nothing else. */
  get idle(): boolean {
    return this.sleeper.asleep;
  }

  get turnRecords(): SechroomTurnRecord[] {
    return this.records.list();
  }

  private get summary(): SessionSummary {
    return this.records.summary;
  }

  /** Processed, completed and abandoned so far. */
  get counts(): SessionSummary {
    return { ...this.records.summary };
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** The operator stops the task in flight (the Turns view): its turn is interrupted, nothing is completed, its lease left to expire. */
  interrupt(leaseId: string): boolean {
    if (!this.turn || this.turnLease !== leaseId) return false;
    this.turn.abort(new Error('canceled by the operator'));
    return true;
  }

  /** Claims nothing new until `resume()`; a turn in flight goes on, the advertisement stays. */
  pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.deps.log.info('paused — not claiming');
    this.read?.abort();
    this.sleeper.wake();
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.deps.log.info('resumed — claiming');
    this.sleeper.wake();
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
      this.sleeper.stop();
      this.read?.abort();
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
      while (!this.stopping) {
        const wait = await this.gates.wait();
        if (this.stopping) break;
        if (wait !== null) {
          await this.sleeper.sleep(wait);
          continue;
        }
        const step = await this.claimOnce();
        if (step === 'expired') return this.summary;
        if (step === 'ran' && this.deps.once) break;
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
    for (const note of notes) this.records.leftover(note);
  }

  // ---- the advertisement (E1, E2, E10) ----

  /** Registers (the advertisement backs off on trouble); false when stopped or signed out first. */
  private async register(): Promise<boolean> {
    this.state({ state: 'registering' });
    try {
      const id = await this.advertisement.register();
      if (!id) return false;
      this.state({ state: 'live', instanceId: id });
      return !this.stopping;
    } catch (error) {
      if (error instanceof AuthExpiredError) this.authExpired(error);
      else throw error;
      return false;
    }
  }

  private async shutDown(): Promise<void> {
    await this.advertisement.withdraw();
    // One last delivery pass; whatever is left stays on disk for the next start (which beats its lease again).
    await this.deps.outbox.flush().catch(() => undefined);
    this.deps.outbox.stop();
    this.keepers.letGoAll();
    // A refused sign-in is what the operator must see, not that the loop stopped because of it.
    if (!this.expired) this.state({ state: 'stopped' });
  }

  // ---- the claim (E3, E4, E5) ----

  private async claimBackoff(error: unknown): Promise<void> {
    const delay = backoffDelay(this.claimFailures++, CLAIM_BACKOFF, this.deps.random);
    this.deps.log.warn(`claim failed (${errorText(error)}) — backing off ${delay} ms and going on`);
    this.state(claimBackoffState(this.advertisement.id, error, this.deps.clock.now() + delay));
    await this.sleeper.sleep(delay);
  }

  // ---- one task ----

  private async process(claim: ClaimedTask): Promise<void> {
    const { settings, log, clock } = this.deps;
    log.info(`claimed ${claim.memoryId} (lease ${claim.leaseId})`);
    const record = this.records.claimed(claim);
    const turn = new AbortController();
    this.turn = turn;
    this.turnLease = claim.leaseId;
    let loss: LeaseLoss | null = null;
    // The heartbeat starts at the claim, so a slow card cannot cost the lease (B6.3), and
    // goes on until the completion has landed, so a completion retried through an outage
    // is not refused 409 lease_expired.
    this.keepers.keep(claim, (lost) => {
      // Our own completion landed before the outbox said so: the record follows from `delivered()`.
      if (record.state === 'completing' && lost.kind === 'ended' && lost.status === 'completed') return;
      loss = lost;
      this.records.update(record, { lease: lost.kind === 'cancel_requested' ? 'cancel_requested' : 'ended' });
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
      if (record.state === 'claimed' || record.state === 'running') this.records.abandon(record, errorText(error));
      throw error;
    } finally {
      // A completion waiting in the outbox keeps its heartbeat; `delivered()` lets go of it.
      if (record.state !== 'completing') this.keepers.letGo(claim.leaseId);
      await this.deps.journal?.end(claim.leaseId).catch(() => undefined);
      this.turn = null;
      this.turnLease = null;
      if (this.drainTimer !== null) clock.clearTimeout(this.drainTimer);
      this.drainTimer = null;
    }
  }

  /** Completions a previous process left in the outbox: their leases are beaten again until they land. */
  private keepPendingCompletions(): void {
    for (const entry of this.deps.outbox.list()) {
      if (entry.kind !== 'complete' || this.keepers.has(entry.leaseId)) continue;
      const lease = { leaseId: entry.leaseId, claimToken: entry.input.claimToken, tokenVersion: entry.input.tokenVersion ?? 1 };
      this.keepers.keep(lease, () => this.keepers.letGo(entry.leaseId));
    }
  }

  /** Card → turn → completion, while the keeper holds the lease. */
  private async runClaimed(claim: ClaimedTask, record: SechroomTurnRecord, turn: AbortController, lossOf: () => LeaseLoss | null): Promise<void> {
    // The card, then its pack (a pack that fails: the card alone, with the seed's warning).
    const task = await loadTask(this.loader, claim.memoryId, turn.signal);
    if (task.ok) this.records.loaded(record, task.card, task.warning);
    else this.records.abandon(record, task.reason);
    if (!task.ok || turn.signal.aborted) return this.records.endWithoutCompletion(record, lossOf(), task.ok ? 'interrupted before the turn started' : null);
    let space: TaskWorkspace | null = null;
    try {
      space = (await this.deps.workspace?.open(claim)) ?? null;
    } catch (error) {
      return this.records.abandon(record, errorText(error));
    }
    const { settings, log } = this.deps;
    this.records.update(record, { state: 'running' });
    const onPhase = (phase: string) => this.records.update(record, { phase });
    const outcome = await runTaskTurn(this.deps.turns, {
      claim,
      title: record.title ?? claim.memoryId,
      task,
      cwd: space?.cwd ?? settings.root,
      signal: turn.signal,
      settings,
      log,
      onPhase,
    });
    if (outcome.usage) this.records.update(record, { tokens: { input: outcome.usage.tokensIn, output: outcome.usage.tokensOut } });
    const loss = lossOf();
    if (loss || outcome.result.status === 'canceled') {
      await space?.discard();
      return this.records.endWithoutCompletion(record, loss, outcome.result.status === 'canceled' ? outcome.result.reason : null);
    }
    await this.finish(claim, record, task.card, outcome, space);
  }

  private async finish(claim: ClaimedTask, record: SechroomTurnRecord, card: TaskCard, turn: TaskTurn, space: TaskWorkspace | null): Promise<void> {
    const packet = turn.tools.closeout;
    const end = turnEnd({ claim, instanceId: this.instanceId, settings: this.deps.settings, card, decompositionId: record.decompositionId, packet, ...turn });
    if (end.kind === 'abandon') {
      await space?.discard();
      return this.records.abandon(record, end.reason);
    }
    const git = await deliverCompleted(space, end, taskTitle(card));
    if (git) this.records.update(record, { git });
    await this.deps.outbox.enqueue(end.completion);
    this.records.update(record, { state: 'completing', verdict: end.verdict, summary: packet?.summary ?? null });
    if (end.telemetry) await this.deps.outbox.enqueue(end.telemetry);
    else this.deps.log.info('telemetry absent: claimed task carried no wlp-decomposition tag');
  }

  // ---- records, state, outbox results ----

  /** The outbox reports each completion's fate; the owner forwards it here. */
  delivered(delivery: OutboxDelivery): void {
    if (delivery.kind !== 'complete') return;
    this.keepers.letGo(delivery.entry.leaseId);
    this.records.delivered(delivery);
  }

  /** The outbox sends a completion with no longer a timeout than its lease has left. */
  leaseTimeLeftMs(leaseId: string): number | null {
    return this.keepers.timeLeftMs(leaseId);
  }

  private authExpired(error: AuthExpiredError): SessionSummary {
    this.expired = true;
    this.deps.log.error(`auth expired: ${error.message}`);
    this.state({ state: 'auth_expired', message: error.message, remedy: error.remedy });
    this.stopping = true;
    return this.summary;
  }

  /**
   * One claim, and its task when it brings one. The offers read (held up to `offerWaitMs`
   * [v1]) takes no slot of the machine: a slot held through an empty hold would starve
   * another profile (a Rost one) that has work. The slot is taken once an offer is there,
   * just before the claim, and goes back before any wait (an empty answer, a backoff).
   */
  private async claimOnce(): Promise<'ran' | 'none' | 'expired'> {
    const read = new AbortController();
    this.read = read;
    const taken: { slot: MachineSlot | null } = { slot: null };
    const admit = async () => (taken.slot = await this.takeSlot()) !== null;
    const startedAt = this.deps.clock.now();
    const claimed = await this.claims.next(this.instanceId, { signal: read.signal, admit }).then(
      (claim) => ({ claim }),
      (error: unknown) => ({ error }),
    );
    this.read = null;
    const release = () => taken.slot?.release();
    if ('error' in claimed) {
      release();
      if (claimed.error instanceof AuthExpiredError) {
        this.authExpired(claimed.error);
        return 'expired';
      }
      await this.claimBackoff(claimed.error);
      return 'none';
    }
    if (this.claimFailures > 0) {
      this.claimFailures = 0;
      this.state({ state: 'live', instanceId: this.instanceId });
    }
    const { claim } = claimed;
    if (!claim) {
      release();
      // A held offers read [v1] already waited (or a pause or stop cut it short); the seed's plain poll waits here.
      const held = this.deps.offerWaitMs ? this.deps.clock.now() - startedAt >= this.deps.offerWaitMs / 2 : false;
      if (!this.stopping && !held && !read.signal.aborted) await this.sleeper.sleep(this.deps.settings.pollIntervalSeconds * 1000);
      return 'none';
    }
    const failure = await this.process(claim).then(
      () => null,
      (error: unknown) => ({ error }),
    );
    release();
    if (failure) {
      if (failure.error instanceof AuthExpiredError) {
        this.authExpired(failure.error);
        return 'expired';
      }
      // Not the Work Layer's doing (e.g. the outbox could not write): say so, and go on after a pause.
      this.deps.log.error(`task ${claim.memoryId} failed in the executor: ${errorText(failure.error)}`);
      await this.claimBackoff(failure.error);
    }
    return 'ran';
  }

  /** A slot of the machine for the claim; null when stopped, or paused (or admission turned) while it waited. */
  private async takeSlot(): Promise<MachineSlot | null> {
    const slot = await takeMachineSlot(this.deps.machine, this.sleeper.signal, () =>
      this.state({ state: 'deferred', instanceId: this.instanceId, reason: MACHINE_FULL }),
    );
    if (!slot || !slot.waited) return slot;
    if (this.stopping || (await this.gates.wait()) !== null) {
      slot.release();
      return null;
    }
    this.state({ state: 'live', instanceId: this.instanceId });
    return slot;
  }

  private state(state: SessionStatus): void {
    this.deps.onState?.(state);
  }
}
