import { errorText } from '../../../../shared/errors';
import type { TaskCard } from '../../../../shared/protocol/sechroom';
import type { TimerHandle } from '../../base/ports';
import type { ClaimedTask } from './claim-path';
import { turnEnd } from './completion';
import type { ExecutorSessionDeps } from './executor-contract';
import type { LeaseKeepers, LeaseLoss } from './lease-keeper';
import { taskTitle } from './prompt';
import type { OutboxDelivery } from './sechroom-outbox';
import { loadTask, type TaskLoaderDeps } from './task-loader';
import { runTaskTurn, type TaskTurn } from './task-turn';
import { deliverCompleted, type TaskWorkspace } from './task-workspace';
import type { SechroomTurnRecord, TurnRecords } from './turn-records';

/** An interruption this machine asked for (the operator's cancel, a stop now): the task is canceled, not failed. */
class CanceledHere extends Error {}

/** Why the task was canceled here, or null when its turn was not interrupted so (a drain timeout, a lost lease). */
const canceledHere = (signal: AbortSignal): string | null => (signal.reason instanceof CanceledHere ? signal.reason.message : null);

/**
 * One claimed task of the executor session, from the claim to its closeout: the lease's
 * heartbeat from the claim on, the in-flight journal note, the card (and its pack), the
 * task's workspace, the turn, the verdict, and the completion and telemetry handed to the
 * durable outbox (whose fate comes back through `delivered`). It also holds the turn in
 * flight, so the operator can interrupt it and a stop can give it its drain time, and
 * re-beats the leases of completions a previous process left in the outbox.
 */
export class ExecutorTaskRun {
  private turn: AbortController | null = null;
  private turnLease: string | null = null;
  private drainTimer: TimerHandle | null = null;

  constructor(
    private readonly deps: ExecutorSessionDeps,
    private readonly keepers: LeaseKeepers,
    private readonly records: TurnRecords,
    private readonly loader: TaskLoaderDeps,
    private readonly instanceIdOf: () => string,
  ) {}

  private get instanceId(): string {
    return this.instanceIdOf();
  }

  /** The operator stops the task in flight (the Turns view, a stop now): its turn is interrupted, it is canceled (nothing completed, its lease left to expire). */
  interrupt(leaseId: string, reason = 'canceled by the operator'): boolean {
    if (!this.turn || this.turnLease !== leaseId) return false;
    this.turn.abort(new CanceledHere(reason));
    return true;
  }

  /** A stop: the turn in flight gets `drainTimeoutSeconds` to finish, then is interrupted. */
  drain(): void {
    if (this.turn) {
      const turn = this.turn;
      this.drainTimer = this.deps.clock.setTimeout(() => turn.abort(new Error('drain timeout')), this.deps.settings.drainTimeoutSeconds * 1000);
    }
  }

  async process(claim: ClaimedTask): Promise<void> {
    const { log, clock } = this.deps;
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
    const unwritable = await this.note(claim);
    try {
      // A task the journal cannot note is not run (its work could not be recorded either): abandoned, as a failed start is.
      if (unwritable) this.records.abandon(record, `not started: the in-flight journal could not be written (${errorText(unwritable)})`);
      else await this.runClaimed(claim, record, turn, () => loss);
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

  /** The claimed task's note in the in-flight journal; the error when the disk refused it (the storage health hears of it), else null. */
  private async note(claim: ClaimedTask): Promise<unknown> {
    const { settings, log, clock } = this.deps;
    const note = {
      instanceKey: settings.instanceKey,
      memoryId: claim.memoryId,
      leaseId: claim.leaseId,
      title: null,
      claimedAt: new Date(clock.now()).toISOString(),
    };
    try {
      await this.deps.journal?.begin(note);
      return null;
    } catch (error) {
      log.warn(`could not note the claimed task on disk: ${errorText(error)}`);
      return this.deps.storage?.failed(error) ? error : null;
    }
  }

  /** Completions a previous process left in the outbox: their leases are beaten again until they land. */
  keepPendingCompletions(): void {
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
    else if (!turn.signal.aborted) this.records.abandon(record, task.reason);
    if (!task.ok || turn.signal.aborted)
      return this.records.endWithoutCompletion(record, lossOf(), 'interrupted before the turn started', canceledHere(turn.signal));
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
      const interrupted = outcome.result.status === 'canceled' ? outcome.result.reason : null;
      return this.records.endWithoutCompletion(record, loss, interrupted, canceledHere(turn.signal));
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
    const git = await deliverCompleted(space, end, taskTitle(card), this.deps.log);
    if (git) this.records.update(record, { git });
    await this.deps.outbox.enqueue(end.completion);
    this.records.update(record, { state: 'completing', verdict: end.verdict, summary: packet?.summary ?? null });
    if (end.telemetry) await this.deps.outbox.enqueue(end.telemetry);
    else this.deps.log.info('telemetry absent: claimed task carried no wlp-decomposition tag');
  }

  /** The outbox reports each completion's fate: its heartbeat stops, its record follows. */
  delivered(delivery: OutboxDelivery): void {
    if (delivery.kind !== 'complete') return;
    this.keepers.letGo(delivery.entry.leaseId);
    this.records.delivered(delivery);
  }
}
