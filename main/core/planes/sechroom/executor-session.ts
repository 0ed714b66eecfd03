import { ClaimPath } from './claim-path';
import { laneOf } from '../../../../shared/sechroom-instance-settings';
import { Advertisement } from './advertisement';
import { ClaimGates } from './claim-gates';
import { LeaseKeepers, type NoticeWatchFactory } from './lease-keeper';
import { LeaseNoticeWatch } from './lease-notice-watch';
import { AuthExpiredError } from './sechroom-auth';
import type { OutboxDelivery } from './sechroom-outbox';
import { LoopSleep } from './loop-sleep';
import type { ExecutorSessionDeps, SessionStatus } from './executor-contract';
import { CLAIM_BACKOFF, ExecutorClaimStep } from './executor-claim-step';
import { ExecutorTaskRun } from './executor-task-run';
import { TurnRecords, type SechroomTurnRecord, type SessionSummary } from './turn-records';

export type { SechroomTurnRecord, SessionSummary } from './turn-records';
export type { ExecutorSessionDeps, SessionStatus } from './executor-contract';

/**
 * One Sechroom executor instance's loop (seed B5/B6), reading top to bottom: register →
 * [admission, ready root] → offers → claim-next → direct claim on a stale head → heartbeat
 * from the claim → card (+ pack) → turn → verdict → completion and telemetry through the
 * durable outbox → deregister on stop. A claim-path error backs off and goes on (the seed's
 * run dies, B15.5); only a refused sign-in stops the loop. The claim step is in
 * executor-claim-step.ts, one claimed task's run to its closeout in executor-task-run.ts.
 */
export class ExecutorSession {
  private readonly advertisement: Advertisement;
  private stopping = false;
  private running: Promise<SessionSummary> | null = null;
  private readonly sleeper: LoopSleep;
  private readonly claims: ClaimPath;
  private readonly records: TurnRecords;
  private paused = false;
  private expired = false;
  /** Lease heartbeats by lease id: from the claim until the completion has landed (or the lease is let go). */
  private readonly keepers: LeaseKeepers;
  private readonly gates: ClaimGates;
  private readonly tasks: ExecutorTaskRun;
  private readonly claimStep: ExecutorClaimStep;

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
    this.gates = new ClaimGates({
      admission: deps.admission,
      root: deps.root,
      storage: deps.storage,
      clock,
      log,
      pollMs: deps.settings.pollIntervalSeconds * 1000,
      paused: () => this.paused,
      onChange: (gate) =>
        this.state(
          gate.state === 'deferred' || gate.state === 'cannot_write'
            ? { ...gate, instanceId: this.instanceId }
            : { state: gate.state, instanceId: this.instanceId },
        ),
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
      ...this.noticeWatch(),
    });
    this.records = new TurnRecords({ clock: deps.clock, log: deps.log, ...(deps.onTurn ? { onTurn: deps.onTurn } : {}) });
    this.claims = new ClaimPath({ client, log, ...(deps.offerWaitMs ? { offerWaitMs: deps.offerWaitMs } : {}), ...waits });
    this.tasks = new ExecutorTaskRun(deps, this.keepers, this.records, { client, log, ...waits }, () => this.instanceId);
    this.claimStep = new ExecutorClaimStep({
      deps,
      claims: this.claims,
      sleeper: this.sleeper,
      gates: this.gates,
      instanceId: () => this.instanceId,
      advertisedId: () => this.advertisement.id,
      stopping: () => this.stopping,
      state: (state) => this.state(state),
      authExpired: (error) => this.authExpired(error),
      process: (claim) => this.tasks.process(claim),
    });
  }

  /** [v1] Where the Work Layer holds reads, a cancel is heard on a held lease-notices read while a lease is kept. */
  private noticeWatch(): { notices?: NoticeWatchFactory } {
    const { client, clock, log, offerWaitMs, random } = this.deps;
    const read = client.leaseNotices?.bind(client);
    if (!read || !offerWaitMs) return {};
    const watch: NoticeWatchFactory = (notice) =>
      new LeaseNoticeWatch({ read: (opts) => read(this.instanceId, opts), waitMs: offerWaitMs, clock, log, notice, ...(random ? { random } : {}) });
    return { notices: watch };
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

  /** The operator stops the task in flight (the Turns view, a stop now): its turn is interrupted, it is canceled (nothing completed, its lease left to expire). */
  interrupt(leaseId: string, reason?: string): boolean {
    return this.tasks.interrupt(leaseId, reason);
  }

  /** Claims nothing new until `resume()`; a turn in flight goes on, the advertisement stays. */
  pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.deps.log.info('paused — not claiming');
    this.claimStep.abortRead();
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
      this.claimStep.abortRead();
      this.tasks.drain();
    }
    if (this.running) return this.running;
    this.state({ state: 'stopped' });
    return this.summary;
  }

  private async loop(): Promise<SessionSummary> {
    const { settings, log } = this.deps;
    this.deps.outbox.start();
    try {
      this.tasks.keepPendingCompletions();
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
        const step = await this.claimStep.claimOnce();
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

  /** The outbox reports each completion's fate; the owner forwards it here. */
  delivered(delivery: OutboxDelivery): void {
    this.tasks.delivered(delivery);
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

  private state(state: SessionStatus): void {
    this.deps.onState?.(state);
  }
}
