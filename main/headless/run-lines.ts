import type { LogEntry } from '../../shared/contract';
import type { LogFeed } from '../core/base/ports';

type Out = { write(text: string): unknown };
type FleetState = 'live' | 'stopping' | 'exited';

/** The executor's own lines that say its loop stopped, ended, or runs again (executor-session.ts), and the exit code the seed's `executor run` would give. */
const STOPPING = /^shutdown requested — /;
const ENDED: readonly [RegExp, number][] = [
  [/^done — processed /, 0],
  [/^auth expired: /, 1],
];
const LIVE = /^driven executor live — /;

/**
 * `sechroom executor run` prints its progress on stderr as `[run] <line>` [seed B5]: the
 * headless host on the Sechroom plane does the same with what the flags' profile's executor
 * logs (info and up; already redacted by the log feed), so scripts that read them go on working.
 *
 * A fleet (several instances) also gets the seed's supervisor lines [seed B12]: the states
 * `[fleet] <key>=live|stopping|exited …` at start, at shutdown and after each exit, and
 * `[<key>] exited (<code>)` when an instance's loop ends (0 when it finished, 1 when its
 * sign-in was refused, as the seed's child process would exit). Here an instance is a
 * profile of this host, not a child: one whose executor starts again is `live` again.
 */
export class RunLines {
  private readonly shown = new Set<string>();
  private readonly off: () => void;
  /** By instance key, in the config's order; empty unless a fleet. */
  private readonly states = new Map<string, FleetState>();
  private stopping = false;

  /**
   * `profiles`: every Sechroom profile of the host. One alone prints as `executor run`
   * does; several (a fleet) print as the seed's fleet relays its children, `[<key>] [run] <line>`.
   */
  constructor(
    feed: LogFeed,
    profiles: readonly { id: string; instanceKey: string }[],
    private readonly out: Out,
  ) {
    const fleet = profiles.length > 1;
    const keys = new Map(profiles.map((p) => [`profile:${p.id}`, p.instanceKey]));
    if (fleet) for (const p of profiles) this.states.set(p.instanceKey, 'live');
    this.off = feed.subscribe((entry: LogEntry) => {
      const key = keys.get(entry.component ?? '');
      if (key === undefined || entry.level === 'debug') return;
      if (this.shown.size > 100) this.shown.clear();
      this.shown.add(entry.msg);
      this.out.write(`${fleet ? `[${key}] [run] ` : '[run] '}${entry.msg}\n`);
      if (fleet) this.track(key, entry.msg);
    });
    if (fleet) this.status();
  }

  /** The host is stopping every instance (the seed's fleet shutdown): each not yet exited is `stopping`, said once. */
  shutdown(): void {
    if (this.stopping || this.states.size === 0) return;
    this.stopping = true;
    for (const [key, state] of this.states) if (state !== 'exited') this.states.set(key, 'stopping');
    this.status();
  }

  /** Prints `[run] <line>` unless the loop printed it already (the `--once` outcome repeats the loop's last word). */
  printOnce(line: string): void {
    if (!this.shown.has(line)) this.out.write(`[run] ${line}\n`);
  }

  close(): void {
    this.off();
  }

  private track(key: string, msg: string): void {
    const state = this.states.get(key);
    if (STOPPING.test(msg) && state === 'live') this.states.set(key, 'stopping');
    const ended = ENDED.find(([line]) => line.test(msg));
    if (ended && state !== 'exited') {
      this.states.set(key, 'exited');
      this.out.write(`[${key}] exited (${ended[1]})\n`);
      this.status();
    }
    if (LIVE.test(msg) && state === 'exited' && !this.stopping) {
      this.states.set(key, 'live');
      this.status();
    }
  }

  private status(): void {
    this.out.write(`[fleet] ${[...this.states].map(([key, state]) => `${key}=${state}`).join(' ')}\n`);
  }
}
