import { errorText } from '../../../../shared/errors';
import { backoffDelay } from '../../base/backoff';
import type { ClaimGates } from './claim-gates';
import { claimBackoffState } from './claim-failure';
import type { ClaimPath, ClaimedTask } from './claim-path';
import type { ExecutorSessionDeps, SessionStatus } from './executor-contract';
import type { LoopSleep } from './loop-sleep';
import { MACHINE_FULL, takeMachineSlot, type MachineSlot } from './machine-slot';
import { AuthExpiredError } from './sechroom-auth';

export const CLAIM_BACKOFF = { baseMs: 1_000, capMs: 60_000 };

/** What the claim step borrows of its executor session. */
export interface ExecutorClaimStepDeps {
  deps: ExecutorSessionDeps;
  claims: ClaimPath;
  sleeper: LoopSleep;
  gates: ClaimGates;
  /** Set once registered (the loop claims only then). */
  instanceId(): string;
  /** The advertisement's id, null before it registered. */
  advertisedId(): string | null;
  stopping(): boolean;
  state(state: SessionStatus): void;
  authExpired(error: AuthExpiredError): void;
  /** The claimed task, run to its closeout. */
  process(claim: ClaimedTask): Promise<void>;
}

/**
 * The executor session's claim step: one offers read (cut short by a stop or a pause), a
 * slot of the machine taken once an offer is there, the claim, and the task it brings run
 * through `process`. A claim-path error (or a task that failed in the executor) backs off
 * on the session's clock and goes on; a refused sign-in ends the loop ('expired').
 */
export class ExecutorClaimStep {
  /** The offers read in flight: a stop or a pause ends its hold at once. */
  private read: AbortController | null = null;
  private claimFailures = 0;
  private readonly deps: ExecutorSessionDeps;
  private readonly claims: ClaimPath;
  private readonly sleeper: LoopSleep;
  private readonly gates: ClaimGates;

  constructor(private readonly host: ExecutorClaimStepDeps) {
    this.deps = host.deps;
    this.claims = host.claims;
    this.sleeper = host.sleeper;
    this.gates = host.gates;
  }

  private get instanceId(): string {
    return this.host.instanceId();
  }

  private get stopping(): boolean {
    return this.host.stopping();
  }

  private state(state: SessionStatus): void {
    this.host.state(state);
  }

  private authExpired(error: AuthExpiredError): void {
    this.host.authExpired(error);
  }

  private process(claim: ClaimedTask): Promise<void> {
    return this.host.process(claim);
  }

  /** Ends the hold of the offers read in flight (a stop, a pause). */
  abortRead(): void {
    this.read?.abort();
  }

  private async claimBackoff(error: unknown): Promise<void> {
    const delay = backoffDelay(this.claimFailures++, CLAIM_BACKOFF, this.deps.random);
    this.deps.log.warn(`claim failed (${errorText(error)}) — backing off ${delay} ms and going on`);
    this.state(claimBackoffState(this.host.advertisedId(), error, this.deps.clock.now() + delay));
    await this.sleeper.sleep(delay);
  }

  /**
   * One claim, and its task when it brings one. The offers read (held up to `offerWaitMs`
   * [v1]) takes no slot of the machine: a slot held through an empty hold would starve
   * another profile (a Rost one) that has work. The slot is taken once an offer is there,
   * just before the claim, and goes back before any wait (an empty answer, a backoff).
   */
  async claimOnce(): Promise<'ran' | 'none' | 'expired'> {
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
      // Not the Work Layer's doing (e.g. the outbox could not write): say so, and go on after a pause. A disk that
      // refuses writes stops the claims (the gates) until it takes them again.
      this.deps.log.error(`task ${claim.memoryId} failed in the executor: ${errorText(failure.error)}`);
      this.deps.storage?.failed(failure.error);
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
}
