import { redactText } from '../../../shared/redact';
import type { Clock, TimerHandle } from '../base/ports';

/**
 * Keeps the first `capBytes` of a stream and only counts the rest, so a runtime that
 * prints gigabytes costs at most `capBytes` of memory.
 */
export class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private seen = 0;

  constructor(private readonly capBytes: number) {}

  push(chunk: Buffer): void {
    this.seen += chunk.length;
    const room = this.capBytes - this.kept;
    if (room <= 0) return;
    // Copy a partial chunk: a subarray would pin the whole pipe chunk in memory.
    const part = chunk.length <= room ? chunk : Buffer.from(chunk.subarray(0, room));
    this.chunks.push(part);
    this.kept += part.length;
  }

  get totalBytes(): number {
    return this.seen;
  }

  get retainedBytes(): number {
    return this.kept;
  }

  get truncated(): boolean {
    return this.seen > this.capBytes;
  }

  /** The kept bytes as UTF-8 (a character split by the cap becomes U+FFFD). */
  text(): string {
    return Buffer.concat(this.chunks, this.kept).toString('utf8');
  }
}

/**
 * Extra bytes kept in front of the tail. The tail can start in the middle of a secret; the
 * margin is redacted together with the tail and then dropped, so a secret shorter than the
 * margin never shows up half-redacted at the start of the tail.
 */
export const TAIL_MARGIN_BYTES = 1024;

/** The last `tailBytes` of everything a runtime printed (stdout and stderr as they came). */
export class TailBuffer {
  private buf: Buffer = Buffer.alloc(0);
  private seen = 0;

  constructor(private readonly tailBytes: number) {}

  push(chunk: Buffer): void {
    this.seen += chunk.length;
    const keep = this.tailBytes + TAIL_MARGIN_BYTES;
    if (chunk.length >= keep) {
      this.buf = Buffer.from(chunk.subarray(chunk.length - keep));
    } else {
      const joined = Buffer.concat([this.buf, chunk]);
      this.buf = joined.length > keep ? joined.subarray(joined.length - keep) : joined;
    }
  }

  get empty(): boolean {
    return this.seen === 0;
  }

  /** The redacted tail, at most `tailBytes` characters. */
  render(knownSecrets: readonly string[]): string {
    let text = redactText(this.buf.toString('utf8'), knownSecrets);
    if (this.seen > this.buf.length) text = text.slice(Math.min(TAIL_MARGIN_BYTES, text.length));
    if (text.length > this.tailBytes) text = text.slice(text.length - this.tailBytes);
    return text.replace(/^\uFFFD+/, '');
  }
}

/** Calls `fn` at most once per `intervalMs`, trailing: the last poke is never lost. */
export class Throttle {
  private timer: TimerHandle | null = null;
  private last = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    private readonly intervalMs: number,
    private readonly fn: () => void,
  ) {}

  poke(): void {
    if (this.timer !== null) return;
    const wait = Math.max(0, this.last + this.intervalMs - this.clock.now());
    this.timer = this.clock.setTimeout(() => this.fire(), wait);
  }

  /** Runs a pending call now (the final state reaches the listener before the outcome). */
  flush(): void {
    if (this.timer === null) return;
    this.clock.clearTimeout(this.timer);
    this.fire();
  }

  cancel(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private fire(): void {
    this.timer = null;
    this.last = this.clock.now();
    this.fn();
  }
}
