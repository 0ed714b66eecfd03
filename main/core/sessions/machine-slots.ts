/**
 * The machine-wide cap on turns at once, over every profile. Each profile's claim loop
 * takes a slot before it claims and gives it back when the claim brings nothing or the
 * turn ends. When slots are short, a freed slot goes to the waiting profile that holds
 * the fewest (then the one waiting longest), so profiles with work share the machine
 * evenly whatever their own caps.
 */
export class MachineSlots {
  private readonly held = new Map<string, number>();
  private readonly waiting: { profile: string; grant: (release: () => void) => void }[] = [];

  constructor(private readonly cap: () => number) {}

  get inUse(): number {
    let total = 0;
    for (const n of this.held.values()) total += n;
    return total;
  }

  heldBy(profile: string): number {
    return this.held.get(profile) ?? 0;
  }

  /** Resolves with the slot's release (a second call does nothing), or null when `signal` aborts first. */
  acquire(profile: string, signal?: AbortSignal): Promise<(() => void) | null> {
    if (signal?.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const entry = {
        profile,
        grant: (release: () => void) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve(null);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
      this.grant();
    });
  }

  /** Whether an `acquire` now would be granted at once (nobody waits, a slot is free). */
  free(): boolean {
    return this.waiting.length === 0 && this.inUse < Math.max(1, this.cap());
  }

  /** The cap may have changed (a setting): hand out what is free now. */
  recheck(): void {
    this.grant();
  }

  private grant(): void {
    while (this.waiting.length > 0 && this.inUse < Math.max(1, this.cap())) {
      let best = 0;
      for (let i = 1; i < this.waiting.length; i++) if (this.heldBy(this.waiting[i]!.profile) < this.heldBy(this.waiting[best]!.profile)) best = i;
      const [entry] = this.waiting.splice(best, 1);
      const profile = entry!.profile;
      this.held.set(profile, this.heldBy(profile) + 1);
      let released = false;
      entry!.grant(() => {
        if (released) return;
        released = true;
        this.held.set(profile, this.heldBy(profile) - 1);
        this.grant();
      });
    }
  }
}
