import { errorText } from '../../../../shared/errors';
import { redactText } from '../../../../shared/redact';
import type { ClaimedWork } from './connector';
import { isConnectorError } from '../../connectors/errors';
import type { ExecutionOutcome } from '../../exec/executor-port';
import { checkContextPacket } from '../../work/prompt';
import { firstLine, resultKey, type UnitRunResult } from './unit-result';
import { UnitLeaseTimer } from './unit-lease';
import { DEFAULT_TURN_TIMEOUT_MS, type UnitRunDeps } from './unit-run-deps';
import { chooseFor, planRun, type Plan } from './unit-run-plan';
import { isStaleResume, runResult, updateResume } from './unit-run-outcome';

/**
 * One unit, start to result: start at the server, check the context packet, pick the
 * runtime, keep the lease, run, and turn the outcome into a result. It never throws for
 * anything the unit did; the caller durably queues the result it returns.
 */
export class UnitRun {
  readonly abort = new AbortController();
  private leaseTimer: UnitLeaseTimer | null = null;
  private leaseAlive = true;
  /** The process has ended: the lease is kept only until the result is delivered. */
  private processEnded = false;
  /** Why the control plane no longer counts this unit as ours (e.g. `lease_expired`), if it said so. */
  private lost: string | null = null;
  private cancelReason: string | null = null;
  private startTaken = false;
  /** What goes on after the outcome, beside the result: turn-folder removal, the resume cache's write. */
  private readonly after: Promise<unknown>[] = [];

  constructor(
    private readonly unit: ClaimedWork,
    private readonly deps: UnitRunDeps,
  ) {}

  get unitId(): string {
    return this.unit.id;
  }

  get key(): string {
    return resultKey(this.unit);
  }

  /** The control plane took the start: the unit ran (or was about to), so it has a result to give. */
  get started(): boolean {
    return this.startTaken;
  }

  /** Set when the control plane answered the lease with a cancel after the process ended. */
  get leaseLost(): string | null {
    return this.lost;
  }

  /** Resolves once the work after the outcome is done (it never rejects). */
  async settled(): Promise<void> {
    await Promise.all(this.after);
  }

  /** The result is delivered (or refused): the lease heartbeats stop. */
  releaseLease(): void {
    this.stopLease();
  }

  /**
   * The control plane canceled the unit: the one path for its lease heartbeat's
   * `cancel_requested` and a cancel notice on a held claim [v1]. While the runtime runs it
   * is stopped; after it ended the cancel only says the plane gave up on the unit.
   */
  planeCancel(reason: string | null, via: 'lease heartbeat' | 'cancel notice'): void {
    if (this.processEnded) {
      if (this.lost !== null) return;
      this.lost = reason ?? 'the control plane no longer holds this unit for us';
      this.deps.log.warn('the control plane ended the unit before its result arrived', { unit: this.unit.id, reason, via });
      return;
    }
    this.deps.patch({ lease: 'cancel_requested' });
    if (this.abort.signal.aborted) return;
    this.deps.log.info('the control plane asked to cancel a running unit', { unit: this.unit.id, reason, via });
    this.cancel(`canceled by the control plane${reason ? ` (${reason})` : ''}`);
  }

  cancel(reason: string): void {
    if (this.abort.signal.aborted) return;
    this.cancelReason = reason;
    this.deps.patch({ phase: 'canceling', reason });
    this.abort.abort();
  }

  async run(): Promise<UnitRunResult | null> {
    const { deps, unit } = this;
    const packet = checkContextPacket(unit.context_packet);
    const choice = chooseFor(deps, unit);
    // What the turn needs is known before the start call: its folder, its sandboxed command
    // and (where the runtime dies with this host) its process are made beside the journal
    // and the start; the prompt waits for the control plane to take the start.
    const plan = planRun(deps, unit, packet, choice);
    let accept: (taken: boolean) => void = () => undefined;
    const startAccepted = new Promise<boolean>((resolve) => (accept = resolve));
    const first = plan.ok ? this.execute(plan, plan.resume, startAccepted) : null;
    void first?.catch(() => undefined); // awaited below; a rejection must not go unhandled meanwhile
    let refused: UnitRunResult | null | undefined;
    try {
      refused = await this.start(choice.ok ? choice.runtime : null);
    } catch (error) {
      accept(false);
      await first?.catch(() => undefined);
      throw error;
    }
    accept(refused === undefined);
    if (refused !== undefined) {
      await first?.catch(() => undefined);
      return refused;
    }
    if (!plan.ok) return plan.failure;
    const { runtime, key } = plan;
    let resumeSessionId = plan.resume;
    deps.patch({ phase: 'running', runtime });
    this.startLease();
    let outcome: ExecutionOutcome;
    try {
      outcome = await (first as Promise<ExecutionOutcome>);
      if (resumeSessionId && outcome.status === 'failed' && !this.abort.signal.aborted && isStaleResume(outcome)) {
        // claude no longer has that conversation (another machine, a cleaned folder): drop
        // the stale id and run the turn once as a fresh session.
        deps.log.warn('claude does not know the resume id; running the turn as a fresh session', { unit: unit.id });
        await deps.resume.forget(key).catch(() => undefined);
        resumeSessionId = null;
        outcome = await this.execute(plan, null);
      }
    } catch (error) {
      this.stopLease();
      throw error;
    }
    // The lease stays alive until the caller has the result delivered (releaseLease):
    // a result outage must not let the control plane fail a unit that succeeded.
    this.processEnded = true;

    updateResume(deps, plan, outcome, resumeSessionId, this.after);
    return runResult(unit, this.key, runtime, outcome, this.cancelReason);
  }

  /** The journal note, then the start call. Undefined: the control plane took the start; else what to answer instead. */
  private async start(runtime: 'claude' | 'codex' | null): Promise<UnitRunResult | null | undefined> {
    const { deps, unit } = this;
    await deps.recordRunning(runtime);
    try {
      await deps.connector.start(deps.credentials, unit);
      this.startTaken = true;
      return undefined;
    } catch (error) {
      if (isConnectorError(error, 'unauthorized')) {
        deps.onRevoked();
        return null;
      }
      // As the seed: a refused start is logged and not reported (the server did not give us
      // the unit to run, so a `failed` result would be a lie about a run that never was).
      const message = redactText(errorText(error), deps.knownSecrets());
      deps.log.warn('unit start refused; nothing is reported', { unit: unit.id, error: message });
      // The plane may cancel the unit between the claim and the start: that is a cancel, not a failure.
      const canceled = isConnectorError(error, 'rejected') && error.status === 409 && /\bcancel(l)?ed\b/i.test(message);
      const view = canceled
        ? { phase: 'canceled' as const, reason: 'canceled by the control plane before it started' }
        : { phase: 'failed' as const, reason: firstLine(message) };
      return { result: null, view, refused: message };
    }
  }

  private execute(plan: Extract<Plan, { ok: true }>, resume: string | null, startAccepted?: Promise<boolean>): Promise<ExecutionOutcome> {
    const { deps, unit } = this;
    const lent = deps.connector.unitTools?.(deps.credentials, unit) ?? null;
    return deps.executor.execute({
      unitId: unit.id,
      kind: unit.kind,
      runtime: plan.runtime,
      binary: plan.binary,
      prompt: plan.prompt,
      mcp: plan.mcp,
      resumeSessionId: resume,
      timeoutMs: unit.timeout_ms ?? DEFAULT_TURN_TIMEOUT_MS,
      signal: this.abort.signal,
      ...(deps.env ? { env: deps.env } : {}),
      knownSecrets: [...deps.knownSecrets(), ...(unit.mcp ? [unit.mcp.token] : [])],
      ...(startAccepted ? { startAccepted } : {}),
      cleanupLater: (removal) => this.after.push(removal),
      onSpawn: (pid) => {
        deps.patch({ pid });
        deps.onSpawn?.(pid);
      },
      onOutput: (tail) => deps.patch({ outputTail: tail }),
      ...(deps.transcript ? { onTranscript: deps.transcript } : {}),
      ...(deps.transcriptBacklog ? { transcriptBacklog: deps.transcriptBacklog } : {}),
      ...(lent ? { tools: lent.tools, developerInstructions: lent.developerInstructions ?? null } : {}),
    });
  }

  /** Lease heartbeats while the runtime runs (on the lease's own clock, unit-lease.ts); the server may ask us to pause or cancel. */
  private startLease(): void {
    const every = this.unit.lease?.heartbeat_ms;
    if (!every) return;
    const startedAt = this.deps.clock.now();
    this.leaseTimer = new UnitLeaseTimer(this.deps.clock, every, async (timeoutMs) => {
      if (!this.leaseAlive) return 'stop';
      try {
        const body = { elapsed_ms: this.deps.clock.now() - startedAt };
        const answer = await this.deps.connector.leaseHeartbeat(this.deps.credentials, this.unit, body, { timeoutMs });
        if (!this.leaseAlive) return 'stop';
        if (answer === null) {
          this.deps.log.info('the control plane has no lease heartbeat; running without one', { unit: this.unit.id });
          return 'stop';
        }
        if (answer.status === 'cancel_requested') {
          this.planeCancel(answer.reason ?? null, 'lease heartbeat');
          return 'stop';
        }
        if (!this.processEnded) this.deps.patch({ lease: answer.status });
        if (answer.status === 'pause_requested') {
          this.deps.log.info('the control plane asked to pause after this turn', { unit: this.unit.id });
        }
        return 'ok';
      } catch (error) {
        if (isConnectorError(error, 'unauthorized')) {
          this.deps.onRevoked();
          return 'stop';
        }
        this.deps.log.warn('lease heartbeat failed', { unit: this.unit.id, error: errorText(error) });
        return 'failed';
      }
    });
    this.leaseTimer.start();
  }

  private stopLease(): void {
    this.leaseAlive = false;
    this.leaseTimer?.stop();
    this.leaseTimer = null;
  }
}
