import { errorText } from '../../../../shared/errors';
import { laneOf, type InstanceSettings } from '../../../../shared/sechroom-instance-settings';
import type { TurnView } from '../../../../shared/turns';
import type { RunOneOutcome } from '../../sessions/session';
import type { SessionStatus } from './executor-session';
import { AuthExpiredError, type SechroomTokenSource } from './sechroom-auth';
import type { SechroomProfileConfig } from './sechroom-config';
import type { SechroomPlumbing, SechroomSessionDeps } from './sechroom-session-deps';
import { SechroomTurnRows } from './sechroom-session-turns';
import { buildExecutorRun, type ExecutorRun } from './sechroom-session-wiring';
import type { SessionSummary } from './turn-records';

/** What a host shows of a Sechroom profile's executor. No secrets: ids, counts and display text. */
export interface SechroomSessionSnapshot {
  kind: 'sechroom';
  instanceKey: string;
  lane: string;
  baseUrl: string;
  status: SessionStatus;
  paused: boolean;
  summary: SessionSummary;
  /** Completions and telemetry batches still waiting in the outbox. */
  outboxPending: number;
  /** Tasks claimed and not settled yet. */
  active: TurnView[];
  /** The tenant's name as the Work Layer's `/me` gave it, once asked. */
  tenantName: string | null;
}

/** What the profile's session hears of its executor: a status that went live, and any change to show. */
export interface SechroomExecutorEvents {
  live(): void;
  changed(): void;
}

const NO_SUMMARY: SessionSummary = { processed: 0, completed: 0, abandoned: 0 };

/**
 * The executor a Sechroom profile's session runs while it is started and signed in: open
 * (the plumbing the host makes for its settings, then one run built in
 * sechroom-session-wiring.ts and its loop started), claims held and let go, a task
 * interrupted, close (the loop stopped and deregistered, the codex app-server let go). It
 * keeps the run's status, latching a refused sign-in over the "stopped" of the shutdown
 * that follows, and its last snapshot after it closed; the profile's tasks are rows of the
 * Turns registry (sechroom-session-turns.ts).
 */
export class SechroomSessionExecutor {
  /** From `open` to `close`: the plumbing made for the open settings. */
  private plumbing: SechroomPlumbing | null = null;
  /** The run's loop while it runs (it may end by itself: `--once`, a refused sign-in). */
  private run: ExecutorRun | null = null;
  private done: Promise<SessionSummary> | null = null;
  private shown: { settings: InstanceSettings; baseUrl: string } | null = null;
  private state: SessionStatus = { state: 'stopped' };
  private held = false;
  private readonly active = new Map<string, TurnView>();
  private lastSummary: SessionSummary = { ...NO_SUMMARY };
  private last: SechroomSessionSnapshot | null = null;
  private tenantName: string | null = null;
  private readonly rows: SechroomTurnRows;

  constructor(
    private readonly deps: SechroomSessionDeps,
    private readonly events: SechroomExecutorEvents,
  ) {
    this.rows = new SechroomTurnRows({ profile: deps.profile.id, registry: deps.registry, clock: deps.clock });
  }

  /** Opened and not closed yet (its loop may have ended by itself). */
  get isOpen(): boolean {
    return this.plumbing !== null;
  }

  /** The last status snapshot (kept after the executor closed). */
  get snapshot(): SechroomSessionSnapshot | null {
    return this.last;
  }

  get instanceId(): string | null {
    const status = this.last?.status;
    return status && 'instanceId' in status ? status.instanceId : null;
  }

  /** The ids of the tasks claimed here and not ended yet. */
  get turns(): ReadonlySet<string> {
    return this.rows.running;
  }

  /** True while the loop waits on the clock (a poll, a backoff) and the outbox writes and sends nothing: only time moves it on. */
  get waitingOnClock(): boolean {
    return !this.run || (this.run.session.idle && !this.run.outbox.busy);
  }

  whenIdle(): Promise<void> {
    return this.rows.whenIdle();
  }

  idleWithin(limitMs: number): Promise<void> {
    return this.rows.idleWithin(limitMs);
  }

  /** Claims nothing new (a task in flight goes on, the advertisement stays) until `resume`. */
  pause(): void {
    this.hold(true);
  }

  resume(): void {
    this.hold(false);
  }

  /** Interrupts the task of a TurnView id (`sechroom:<leaseId>`) if it runs here now. */
  interrupt(turnId: string, reason?: string): boolean {
    if (!this.isOpen || !turnId.startsWith('sechroom:')) return false;
    return this.run?.session.interrupt(turnId.slice('sechroom:'.length), reason) ?? false;
  }

  /** Every task here interrupted and canceled for `reason` (nothing completed, leases left to expire); how many there were. */
  interruptAll(reason: string): number {
    const running = [...this.rows.running];
    for (const id of running) this.interrupt(id, reason);
    return running.length;
  }

  /** `--once`: the open executor's one task run to its end, and what came of it. */
  async ranOnce(): Promise<RunOneOutcome> {
    const summary = await this.finished();
    const status = this.last?.status;
    if (status?.state === 'auth_expired') return { claimed: summary.processed > 0, error: `auth expired: ${status.message}` };
    const pending = this.last?.outboxPending ?? 0;
    return {
      claimed: summary.processed > 0,
      error: summary.abandoned > 0 ? 'the task was abandoned' : pending > 0 ? 'the completion could not be delivered yet (it stays queued)' : null,
    };
  }

  /** Resolves once the loop runs (its outbox loaded); claims wait while `paused`. */
  async open(config: SechroomProfileConfig, tokens: SechroomTokenSource, once: boolean, paused: boolean): Promise<void> {
    const plumbing = this.deps.plumbing(config);
    this.plumbing = plumbing;
    [this.state, this.held, this.lastSummary] = [{ state: 'stopped' }, paused, { ...NO_SUMMARY }];
    this.active.clear();
    this.shown = { settings: config.instance, baseUrl: config.baseUrl };
    if (paused) this.emitStatus();
    const run = await buildExecutorRun(this.deps, { config, tokens, plumbing, once }, this.hooks());
    this.run = run;
    this.askTenantName(run);
    if (this.held) run.session.pause();
    this.done = run.session.run().then(
      (summary) => this.ended(summary),
      (error: unknown) => {
        this.deps.log.error(`the Sechroom session ended on an error: ${errorText(error)}`);
        return this.ended(this.lastSummary);
      },
    );
  }

  async close(): Promise<void> {
    const plumbing = this.plumbing;
    this.plumbing = null;
    if (this.run) {
      await this.run.session.stop();
      await this.finished();
    }
    plumbing?.storage?.stop();
    await plumbing?.turns.stop?.().catch((error: unknown) => this.deps.log.warn(`could not stop the codex app-server: ${errorText(error)}`));
  }

  /** Who the bearer belongs to, for the tenant's name; best effort, off the loop's path (the id is shown meanwhile). */
  private askTenantName(run: ExecutorRun): void {
    run.client.me().then(
      (me) => {
        if (me.tenantName === this.tenantName) return;
        this.tenantName = me.tenantName;
        this.emitStatus();
      },
      (error: unknown) => this.deps.log.debug(`the Work Layer did not say the tenant's name: ${errorText(error)}`),
    );
  }

  private hold(held: boolean): void {
    if (!this.isOpen) return;
    this.held = held;
    if (held) this.run?.session.pause();
    else this.run?.session.resume();
    this.emitStatus();
  }

  private finished(): Promise<SessionSummary> {
    return this.done ?? Promise.resolve(this.lastSummary);
  }

  private hooks(): Parameters<typeof buildExecutorRun>[2] {
    return {
      state: (status) => this.setStatus(status),
      turn: (turn) => this.turnChanged(turn),
      authExpired: (error) =>
        this.setStatus({ state: 'auth_expired', message: error.message, remedy: error instanceof AuthExpiredError ? error.remedy : 'sign_in' }),
      outboxChanged: () => this.emitStatus(),
    };
  }

  private ended(summary: SessionSummary): SessionSummary {
    this.lastSummary = summary;
    this.run = null;
    if (this.state.state !== 'auth_expired') this.setStatus({ state: 'stopped' });
    return summary;
  }

  private setStatus(status: SessionStatus): void {
    // A refused bearer ends the executor, whose shutdown then says "stopped": the refusal is what the operator must see.
    if (status.state === 'stopped' && this.state.state === 'auth_expired') return;
    this.state = status;
    this.emitStatus();
  }

  private turnChanged(turn: TurnView): void {
    if (turn.endedAt === null) this.active.set(turn.id, turn);
    else this.active.delete(turn.id);
    this.rows.changed(turn);
    this.events.changed();
  }

  private emitStatus(): void {
    const wasLive = this.last?.status.state === 'live';
    this.last = this.currentSnapshot();
    if (this.last.status.state === 'live' && !wasLive) this.events.live();
    this.events.changed();
  }

  private currentSnapshot(): SechroomSessionSnapshot {
    const { settings, baseUrl } = this.shown!;
    return {
      kind: 'sechroom',
      instanceKey: settings.instanceKey,
      lane: laneOf(settings),
      baseUrl,
      status: this.state,
      paused: this.held,
      summary: this.run ? this.run.session.counts : { ...this.lastSummary },
      outboxPending: this.run?.outbox.pending ?? 0,
      active: [...this.active.values()],
      tenantName: this.tenantName,
    };
  }
}
