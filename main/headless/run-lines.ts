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

  constructor(
    feed: LogFeed,
    profile: string,
    private readonly out: Out,
  ) {
    const component = `profile:${profile}`;
    this.off = feed.subscribe((entry: LogEntry) => {
      if (entry.component !== component || entry.level === 'debug') return;
      if (this.shown.size > 100) this.shown.clear();
      this.shown.add(entry.msg);
      this.out.write(`[run] ${entry.msg}\n`);
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
