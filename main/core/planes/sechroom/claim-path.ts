import type { ClaimResult, DispatchOffer } from '../../../../shared/protocol/sechroom';
import type { Logger } from '../../base/ports';
import { isConnectorError } from '../../connectors/errors';
import { AuthExpiredError } from './sechroom-auth';
import type { WorkLayerClient } from './work-layer-client';

/** The longest `suggestedClaimDelayMs` we honour; a larger hint is a server bug, not a reason to stall. */
const MAX_CLAIM_DELAY_MS = 30_000;
const SUCCESS = new Set(['Claimed', 'AlreadyHeld']);

/** A claimed task as the session holds it (seed `toClaimed`). The claim token is a secret: never logged. */
export interface ClaimedTask {
  outcome: string;
  leaseId: string;
  claimToken: string;
  tokenVersion: number;
  memoryId: string;
  generationId: string;
  decompositionId: string | null;
}

export interface ClaimOptions {
  signal?: AbortSignal;
  admit?: () => Promise<boolean>;
}

export interface ClaimPathDeps {
  client: Pick<WorkLayerClient, 'offers' | 'claimNext' | 'claimDirect'>;
  log: Logger;
  /** [v1] Ask the Work Layer to hold an empty offers read this long (0: poll like the seed). */
  offerWaitMs?: number;
  sleep(ms: number): Promise<void>;
  stopping(): boolean;
}

/**
 * One claim attempt (seed `claimNextTask`, B6.1–B6.2): offers → claim-next on the head with
 * `executor-run:<generationId>` → the direct claim over the offers on any other outcome. It
 * remembers a claim-next whose answer was lost and asks again with the same key first, so
 * a lease the Work Layer granted is not left to expire. Errors propagate (the caller backs off).
 */
export class ClaimPath {
  /** A claim-next whose answer was lost: asked again, with the same key, before anything else. */
  private pendingClaimKey: string | null = null;

  constructor(private readonly deps: ClaimPathDeps) {}

  /**
   * `signal` ends a held offers read at once (a stop, a pause): that is no offer. `admit` is
   * asked just before the first claim request, once there is something to claim, and may
   * wait (for a slot of the machine); false claims nothing.
   */
  async next(instanceId: string, opts: ClaimOptions = {}): Promise<ClaimedTask | null> {
    const admit = opts.admit ?? (() => Promise.resolve(true));
    if (this.pendingClaimKey) {
      if (!(await admit())) return null;
      const key = this.pendingClaimKey;
      const again = await this.deps.client.claimNext(instanceId, key);
      this.pendingClaimKey = null;
      const held = SUCCESS.has(again.outcome) ? toClaimed(again, null) : null;
      if (held) {
        this.deps.log.info(`claim-next answered ${again.outcome} on retry with the same key`, { leaseId: held.leaseId });
        return held;
      }
      return this.fromOffers(instanceId, opts.signal, () => Promise.resolve(true));
    }
    return this.fromOffers(instanceId, opts.signal, admit);
  }

  private async fromOffers(instanceId: string, signal: AbortSignal | undefined, admit: () => Promise<boolean>): Promise<ClaimedTask | null> {
    const offers = await this.offers(instanceId, signal);
    const head = offers[0];
    if (!head || this.deps.stopping()) return null;
    if (head.suggestedClaimDelayMs > 0) {
      await this.deps.sleep(Math.min(head.suggestedClaimDelayMs, MAX_CLAIM_DELAY_MS));
      if (this.deps.stopping()) return null;
    }
    if (!(await admit()) || this.deps.stopping()) return null;
    const key = `executor-run:${head.generationId}`;
    let next: ClaimResult;
    try {
      next = await this.deps.client.claimNext(instanceId, key);
    } catch (error) {
      // The answer may have been lost after the Work Layer granted the lease: ask again with this key first.
      if (isConnectorError(error) && error.retryable) this.pendingClaimKey = key;
      throw error;
    }
    if (SUCCESS.has(next.outcome)) {
      const claimed = toClaimed(next, next.offer ?? head);
      if (claimed) return claimed;
      this.deps.log.warn(`claim-next answered ${next.outcome} without a lease id or claim token; trying the direct claim`);
    } else if (next.outcome === 'NoOffer') {
      return null;
    } else {
      this.deps.log.info(`claim-next returned ${next.outcome}; falling through to direct per-generation claim`);
    }
    for (const offer of offers) {
      if (this.deps.stopping()) return null;
      try {
        const direct = await this.deps.client.claimDirect(instanceId, offer.generationId);
        const claimed = SUCCESS.has(direct.outcome) ? toClaimed(direct, offer) : null;
        if (claimed) return claimed;
      } catch (error) {
        // A refusal of one offer (the seed dies on a 409 here) is a reason to try the next.
        if (error instanceof AuthExpiredError || !(isConnectorError(error, 'rejected') || isConnectorError(error, 'not_found'))) throw error;
        this.deps.log.info(`direct claim of ${offer.memoryId} refused (${error.message}); trying the next offer`);
      }
    }
    return null;
  }

  /** The offers, the read held [v1] when asked; aborted by `signal`: none. */
  private async offers(instanceId: string, signal: AbortSignal | undefined): Promise<DispatchOffer[]> {
    const wait = this.deps.offerWaitMs ? { waitMs: this.deps.offerWaitMs } : {};
    try {
      return await this.deps.client.offers(instanceId, { ...wait, ...(signal ? { signal } : {}) });
    } catch (error) {
      if (signal?.aborted) return [];
      throw error;
    }
  }
}

/** `toClaimed` [seed]: a claim is only trusted with a lease id and a claim token. */
function toClaimed(result: ClaimResult, offer: DispatchOffer | null): ClaimedTask | null {
  const lease = result.lease;
  if (!lease?.id || !result.claimToken) return null;
  const tags = result.offer?.tags ?? offer?.tags ?? [];
  const tag = tags.find((t) => t.startsWith('wlp-decomposition:'));
  return {
    outcome: result.outcome,
    leaseId: lease.id,
    claimToken: result.claimToken,
    tokenVersion: result.tokenVersion ?? lease.tokenVersion ?? 1,
    memoryId: lease.memoryId,
    generationId: lease.generationId,
    decompositionId: tag?.slice('wlp-decomposition:'.length) || result.offer?.decompositionId || offer?.decompositionId || null,
  };
}
