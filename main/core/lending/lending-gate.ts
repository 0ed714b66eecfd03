// The one lending gate of the host: whether this machine may take new work now, for every
// profile of both planes, and why not. It reads the sources on a modest poll and again at
// the instants a term changes by the clock (a schedule boundary, the idle threshold).
import type { LendingHold, LendingView } from '../../../shared/lending';
import { errorText } from '../../../shared/errors';
import type { Clock, Logger, TimerHandle } from '../base/ports';
import type { ClaimAdmission } from '../work/claim-admission';
import { evaluateTerms, turnCapFor, type LendingReadings, type LendingTerms } from './lending-terms';
import type { LendingSources } from './sources';

/** How often power, CPU, disk and input are read again. */
export const LENDING_POLL_MS = 20_000;

export interface LendingGateDeps {
  clock: Clock;
  log: Logger;
  terms(): LendingTerms;
  sources: LendingSources;
  /** The folders new work writes to (the data folder, the turns folder). */
  folders(): readonly string[];
  pollMs?: number;
}

/** What a plane's claim path needs of the gate. */
export interface LendingPort {
  holds(): LendingHold[];
  /** The first hold's reason (the status line's `held`), or null while new work is let in. */
  reason(): string | null;
  /** Claims only while no term holds (composed with the usage admission). */
  readonly admission: ClaimAdmission;
}

const sameHolds = (a: readonly LendingHold[], b: readonly LendingHold[]) =>
  a.length === b.length && a.every((h, i) => h.kind === b[i]!.kind && h.reason === b[i]!.reason);

export class LendingGate implements LendingPort {
  private current: LendingHold[] = [];
  private isActive = false;
  private lowDisk = new Set<string>();
  private timer: TimerHandle | null = null;
  private running = false;
  private reading: Promise<void> | null = null;
  private readonly listeners = new Set<() => void>();

  readonly admission: ClaimAdmission = {
    allowsClaim: () => this.current.length === 0,
    admits: () => true,
    onChange: (listener) => this.onChange(listener),
  };

  constructor(private readonly deps: LendingGateDeps) {}

  holds(): LendingHold[] {
    return [...this.current];
  }

  get active(): boolean {
    return this.isActive;
  }

  reason(): string | null {
    return this.current[0]?.reason ?? null;
  }

  /** The machine's cap on turns at once now, from the cap while idle. */
  turnCap(idleCap: number): number {
    return turnCapFor(this.deps.terms(), this.isActive, idleCap);
  }

  view(idleCap: number): LendingView {
    return { holds: this.holds(), active: this.isActive, turnCap: this.turnCap(idleCap) };
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reads the terms once before the first claim, then keeps them current. */
  async start(): Promise<void> {
    this.running = true;
    await this.check();
  }

  stop(): void {
    this.running = false;
    this.clearTimer();
  }

  /** The terms or the machine may have changed (a setting): read again now. */
  check(): Promise<void> {
    this.reading ??= this.read().finally(() => (this.reading = null));
    return this.reading;
  }

  private async read(): Promise<void> {
    const { sources, clock } = this.deps;
    const [idleSeconds, power, disk] = await Promise.all([
      sources.idle.idleSeconds().catch(() => null),
      sources.power.read().catch(() => null),
      Promise.all([...new Set(this.deps.folders())].map(async (dir) => ({ dir, freeBytes: await sources.disk.freeBytes(dir).catch(() => null) }))),
    ]);
    const readings: LendingReadings = { now: clock.now(), idleSeconds, power, cpuPercent: sources.cpu.percent(), disk };
    let verdict;
    try {
      verdict = evaluateTerms(this.deps.terms(), readings, this.lowDisk);
    } catch (error) {
      this.deps.log.warn('the lending terms could not be read; keeping the last verdict', { error: errorText(error) });
      this.schedule(null);
      return;
    }
    this.lowDisk = verdict.lowDisk;
    const changed = !sameHolds(this.current, verdict.holds) || this.isActive !== verdict.active;
    this.current = verdict.holds;
    this.isActive = verdict.active;
    this.schedule(verdict.nextCheckAt);
    if (!changed) return;
    const first = verdict.holds[0];
    if (first) this.deps.log.info('lending terms hold new work', { holds: verdict.holds.map((h) => h.kind), reason: first.reason });
    else this.deps.log.info('lending terms let new work in', { active: verdict.active });
    for (const listener of [...this.listeners]) listener();
  }

  private schedule(nextCheckAt: number | null): void {
    this.clearTimer();
    if (!this.running) return;
    const poll = this.deps.pollMs ?? LENDING_POLL_MS;
    const delay = nextCheckAt === null ? poll : Math.max(0, Math.min(poll, nextCheckAt - this.deps.clock.now()));
    this.timer = this.deps.clock.setTimeout(() => void this.check(), delay);
  }

  private clearTimer(): void {
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}
