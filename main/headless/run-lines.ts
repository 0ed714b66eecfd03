import type { LogEntry } from '../../shared/contract';
import type { LogFeed } from '../core/base/ports';

type Out = { write(text: string): unknown };

/**
 * `sechroom executor run` prints its progress on stderr as `[run] <line>` [seed B5]: the
 * headless host on the Sechroom plane does the same with what the flags' profile's executor
 * logs (info and up; already redacted by the log feed), so scripts that read them go on working.
 */
export class RunLines {
  private readonly shown = new Set<string>();
  private readonly off: () => void;

  /**
   * `profiles`: every Sechroom profile of the host. One alone prints as `executor run`
   * does; several (a fleet) print as the seed's fleet relays its children, `[<key>] [run] <line>`.
   */
  constructor(
    feed: LogFeed,
    profiles: readonly { id: string; instanceKey: string }[],
    private readonly out: Out,
  ) {
    const prefix = new Map(profiles.map((p) => [`profile:${p.id}`, profiles.length > 1 ? `[${p.instanceKey}] [run] ` : '[run] ']));
    this.off = feed.subscribe((entry: LogEntry) => {
      const head = prefix.get(entry.component ?? '');
      if (head === undefined || entry.level === 'debug') return;
      if (this.shown.size > 100) this.shown.clear();
      this.shown.add(entry.msg);
      this.out.write(`${head}${entry.msg}\n`);
    });
  }

  /** Prints `[run] <line>` unless the loop printed it already (the `--once` outcome repeats the loop's last word). */
  printOnce(line: string): void {
    if (!this.shown.has(line)) this.out.write(`[run] ${line}\n`);
  }

  close(): void {
    this.off();
  }
}
