import { StringDecoder } from 'node:string_decoder';

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
