import { StringDecoder } from 'node:string_decoder';
import { NO_TRANSCRIPT, type TranscriptSink } from './transcript-writer';

/**
 * Splits a runtime's stdout into lines as the bytes arrive and hands each JSON object
 * line, parsed, to `onJson`; other lines go to `onText`. A line longer than `maxLineChars`
 * is skipped without ever being buffered whole.
 */
export class JsonLines {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private overlong = false;

  constructor(
    private readonly maxLineChars: number,
    private readonly onJson: (json: unknown) => void,
    private readonly onText: (line: string) => void = () => undefined,
  ) {}

  push(chunk: Buffer): void {
    const text = this.decoder.write(chunk);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      this.endLine(text.slice(start, nl));
      start = nl + 1;
    }
    this.append(text.slice(start));
  }

  end(): void {
    this.endLine(this.decoder.end());
  }

  private append(piece: string): void {
    if (this.overlong) return;
    if (this.partial.length + piece.length > this.maxLineChars) {
      this.overlong = true;
      this.partial = '';
      return;
    }
    this.partial += piece;
  }

  private endLine(piece: string): void {
    this.append(piece);
    const line = this.partial.trim();
    const skipped = this.overlong;
    this.partial = '';
    this.overlong = false;
    if (skipped || line === '') return;
    if (!line.startsWith('{')) return this.onText(line);
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return this.onText(line);
    }
    this.onJson(json);
  }
}

/**
 * A runtime's stdout read as JSON event lines as they arrive: each event to `event`, any
 * plain log line to the transcript as a note. The claude stream-json and codex exec
 * readers are this with their own events.
 */
export abstract class JsonEventReader {
  private readonly lines: JsonLines;
  /** Lines that looked like events but did not match the schema. */
  malformed = 0;

  /**
   * @param maxLineChars longer lines are skipped (never buffered whole).
   * @param transcript where the turn's messages, commands and file changes go as they arrive.
   */
  constructor(
    maxLineChars: number,
    protected readonly transcript: TranscriptSink = NO_TRANSCRIPT,
  ) {
    this.lines = new JsonLines(
      maxLineChars,
      (json) => this.event(json),
      (text) => this.transcript.line('note', text),
    );
  }

  push(chunk: Buffer): void {
    this.lines.push(chunk);
  }

  /** The last bytes, read as the last line. */
  protected endLines(): void {
    this.lines.end();
  }

  protected abstract event(json: unknown): void;
}
