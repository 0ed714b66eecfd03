import { redactText } from '../../../shared/redact';
import { TRANSCRIPT_LINE_MAX, type TranscriptKind, type TranscriptLine } from '../../../shared/transcript';

/**
 * Where a runtime's output parser puts what the turn does, in the runtime's own units:
 * whole texts (`line`), or items that stream in pieces (`delta`, keyed by the item) and
 * are then finished with their whole text.
 */
export interface TranscriptSink {
  /** Whole text: one line per `\n`. */
  line(kind: TranscriptKind, text: string, exitCode?: number | null): void;
  /** A piece of a growing item (a message streamed by deltas). */
  delta(key: string, kind: TranscriptKind, piece: string): void;
  /** The item ends: what streamed of it closes; when nothing streamed, `whole` is written instead. */
  finish(key: string, kind: TranscriptKind, whole?: string): void;
}

/** A sink that keeps nothing (a turn nobody watches). */
export const NO_TRANSCRIPT: TranscriptSink = { line: () => undefined, delta: () => undefined, finish: () => undefined };

/**
 * Numbers and redacts the lines of one turn and hands each to `emit`: a closed line once,
 * an open one again each time what may be shown of it grows.
 *
 * An open line is shown only up to its last whitespace: a secret is one run of
 * non-blank characters, so it is redacted whole when it is complete and never shows
 * half-written. Keys of items already finished are remembered so a late `finish` of an
 * item that streamed is not written twice.
 */
export class TranscriptWriter implements TranscriptSink {
  private next = 0;
  private readonly open = new Map<string, { n: number; kind: TranscriptKind; text: string; shown: string }>();
  private readonly streamed = new Set<string>();

  constructor(
    private readonly emit: (line: TranscriptLine) => void,
    private readonly knownSecrets: readonly string[],
  ) {}

  line(kind: TranscriptKind, text: string, exitCode?: number | null): void {
    const lines = text.replace(/\r\n?/g, '\n').replace(/\n+$/, '').split('\n');
    for (const whole of lines) {
      for (let at = 0; at === 0 || at < whole.length; at += TRANSCRIPT_LINE_MAX) {
        this.closed(kind, whole.slice(at, at + TRANSCRIPT_LINE_MAX), exitCode);
      }
    }
  }

  delta(key: string, kind: TranscriptKind, piece: string): void {
    this.streamed.add(key);
    const parts = piece.replace(/\r\n?/g, '\n').split('\n');
    parts.forEach((part, i) => {
      if (i > 0) this.close(key);
      if (part) this.grow(key, kind, part);
    });
  }

  finish(key: string, kind: TranscriptKind, whole?: string): void {
    if (this.streamed.has(key)) {
      this.close(key);
      this.streamed.delete(key);
    } else if (whole !== undefined && whole.trim() !== '') {
      this.line(kind, whole);
    }
  }

  /** Closes every open line (the turn ended, however it ended). */
  end(): void {
    for (const key of [...this.open.keys()]) this.close(key);
    this.streamed.clear();
  }

  private grow(key: string, kind: TranscriptKind, part: string): void {
    let rest = part;
    while (rest) {
      const line = this.open.get(key) ?? { n: this.next++, kind, text: '', shown: '' };
      this.open.set(key, line);
      const room = TRANSCRIPT_LINE_MAX - line.text.length;
      line.text += rest.slice(0, room);
      rest = rest.slice(room);
      if (line.text.length >= TRANSCRIPT_LINE_MAX) this.close(key);
      else this.show(line);
    }
  }

  private show(line: { n: number; kind: TranscriptKind; text: string; shown: string }): void {
    const cut = Math.max(line.text.lastIndexOf(' '), line.text.lastIndexOf('\t'));
    const visible = cut < 0 ? '' : line.text.slice(0, cut);
    if (visible === line.shown) return;
    line.shown = visible;
    this.emit({ n: line.n, kind: line.kind, text: this.clean(visible), open: true });
  }

  private close(key: string): void {
    const line = this.open.get(key);
    if (!line) return;
    this.open.delete(key);
    this.emit({ n: line.n, kind: line.kind, text: this.clean(line.text) });
  }

  private closed(kind: TranscriptKind, text: string, exitCode: number | null | undefined): void {
    this.emit({ n: this.next++, kind, text: this.clean(text), ...(exitCode !== undefined ? { exitCode } : {}) });
  }

  /** Redacted, and cut back to the line bound (a marker can be longer than what it replaced). */
  private clean(text: string): string {
    return redactText(text, this.knownSecrets).slice(0, TRANSCRIPT_LINE_MAX);
  }
}
