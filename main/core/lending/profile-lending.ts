// One profile's view of the lending terms: the machine's (the host's gate) and, within
// them, the profile's own hours (`profileLendSchedule`, a per-profile setting; empty:
// whenever the machine lends). A profile can narrow the machine's terms, never widen them.
import type { LendingHold } from '../../../shared/lending';
import type { Clock, TimerHandle } from '../base/ports';
import type { ClaimAdmission } from '../work/claim-admission';
import type { LendingPort } from './lending-gate';
import { scheduleHold } from './lending-terms';

export interface ProfileLendingDeps {
  clock: Clock;
  /** The host's gate (every profile's terms). */
  host: LendingPort;
  /** The profile's own hours (its `profileLendSchedule`). */
  schedule(): string;
  /** The profile's settings changed: its hours may have. */
  onSettingsChange(listener: () => void): () => void;
}

const OWN_HOURS = "this profile's hours";

export class ProfileLending implements LendingPort {
  private readonly listeners = new Set<() => void>();
  private timer: TimerHandle | null = null;
  private offs: (() => void)[] = [];

  readonly admission: ClaimAdmission = {
    allowsClaim: () => this.deps.host.admission.allowsClaim() && this.own().hold === null,
    admits: (runtime) => this.deps.host.admission.admits(runtime),
    onChange: (listener) => this.onChange(listener),
  };

  constructor(private readonly deps: ProfileLendingDeps) {}

  /** The machine's holds first (they say why the whole machine waits), then the profile's own. */
  holds(): LendingHold[] {
    const own = this.own().hold;
    return own ? [...this.deps.host.holds(), own] : this.deps.host.holds();
  }

  reason(): string | null {
    return this.holds()[0]?.reason ?? null;
  }

  private own(): ReturnType<typeof scheduleHold> {
    const schedule = this.deps.schedule();
    return schedule.trim() === '' ? { hold: null, next: null } : scheduleHold(schedule, this.deps.clock.now(), OWN_HOURS);
  }

  /** Listeners hear the machine's changes, a change of the profile's hours, and each of its boundaries. */
  private onChange(listener: () => void): () => void {
    if (this.listeners.size === 0) {
      this.offs = [this.deps.host.admission.onChange(() => this.notify()), this.deps.onSettingsChange(() => this.changed())];
      this.arm();
    }
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size > 0) return;
      for (const off of this.offs.splice(0)) off();
      this.disarm();
    };
  }

  private changed(): void {
    this.arm();
    this.notify();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** A timer at the profile's next boundary (an hour it opens or closes), while anyone listens. */
  private arm(): void {
    this.disarm();
    const { next } = this.own();
    if (next === null) return;
    this.timer = this.deps.clock.setTimeout(() => this.changed(), Math.max(0, next - this.deps.clock.now()));
  }

  private disarm(): void {
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}

/** The lending terms one profile claims under: the host's, narrowed by its own `profileLendSchedule`. */
export function profileLending(
  host: LendingPort,
  clock: Clock,
  settings: { get(): { profileLendSchedule: string }; onChange(listener: () => void): () => void },
): ProfileLending {
  return new ProfileLending({ clock, host, schedule: () => settings.get().profileLendSchedule, onSettingsChange: (l) => settings.onChange(l) });
}
