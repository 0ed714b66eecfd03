import { ClaimLoopBase } from '../../sessions/claim-loop';
import type { ClaimedWork } from './connector';

/**
 * The seed CLI's strategy, kept as the benchmark's baseline: a full claim right after each
 * heartbeat and an interactive-only one every interactive interval between, one unit per
 * tick, run to its end before the next tick. No long-poll.
 */
export class SerialClaimLoop extends ClaimLoopBase<ClaimedWork> {
  protected async run(): Promise<void> {
    while (this.running) {
      if (this.deps.blocked()) {
        await this.wait(null);
        continue;
      }
      if (!this.fullClaimDue) await this.wait(this.deps.interactiveClaimMs(), 'beat');
      const signal = this.signal;
      if (!this.running || this.deps.blocked() || signal.aborted) continue;
      const release = await this.deps.machine.acquire(this.deps.profile, signal);
      if (!release) continue;
      const full = this.fullClaimDue;
      this.fullClaimDue = false;
      const claimed = await this.claimOnce({ interactiveOnly: !full, signal });
      if (claimed.unit) {
        // The slot goes with the turn; the next tick waits for its end.
        await this.until(this.deps.launch(claimed.unit).finally(release));
        continue;
      }
      release();
      const retryInMs = claimed.retryInMs;
      if (retryInMs !== null) await this.wait(retryInMs, 'none');
    }
  }
}
