/**
 * Counts wrong codes typed on an approval page. After `maxFailures` within the
 * window the key is blocked until the window ends. In memory: a restart or an
 * admin reset forgives everyone.
 */
export class WrongCodeLimiter {
  private readonly entries = new Map<string, { failures: number; windowStart: number }>();

  constructor(
    private readonly now: () => number,
    private readonly limits: () => { maxFailures: number; windowMs: number },
  ) {}

  /** Milliseconds until any of the keys may try again, or 0 when none is blocked. */
  blockedFor(keys: string[]): number {
    const { maxFailures, windowMs } = this.limits();
    let wait = 0;
    for (const key of keys) {
      const entry = this.live(key, windowMs);
      if (entry && entry.failures >= maxFailures) wait = Math.max(wait, entry.windowStart + windowMs - this.now());
    }
    return wait;
  }

  recordFailure(keys: string[]): void {
    const { windowMs } = this.limits();
    for (const key of keys) {
      const entry = this.live(key, windowMs) ?? { failures: 0, windowStart: this.now() };
      entry.failures += 1;
      this.entries.set(key, entry);
    }
  }

  clear(): void {
    this.entries.clear();
  }

  private live(key: string, windowMs: number) {
    const entry = this.entries.get(key);
    if (entry && entry.windowStart + windowMs <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }
}
