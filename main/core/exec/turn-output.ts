import { StringDecoder } from 'node:string_decoder';
import type { TranscriptLine } from '../../../shared/transcript';
import { ClaudeStreamReader } from './claude-stream';
import { CodexEventReader } from './codex-events';
import { CappedBuffer, TailBuffer } from './output-capture';
import type { OutputMode } from './runtime-args';
import type { RuntimeReport } from './runtime-report';
import { NO_TRANSCRIPT, TranscriptWriter, type TranscriptSink } from './transcript-writer';

/** The raw stdout kept beside an event stream's reader (see the constructor). */
const EVENT_STDOUT_CAP_BYTES = 256 * 1024;

/**
 * Everything one runtime process prints, read as it arrives: the capped raw capture for
 * the summary, the redacted tail, the runtime's structured events (its report, and the
 * live transcript), per output mode.
 */
export class TurnOutput {
  readonly stdout: CappedBuffer;
  readonly stderr: CappedBuffer;
  readonly tail: TailBuffer;
  private readonly writer: TranscriptWriter | null;
  private readonly codex: CodexEventReader | null;
  private readonly claude: ClaudeStreamReader | null;
  private readonly sink: TranscriptSink;
  private readonly outText = new StringDecoder('utf8');
  private readonly errText = new StringDecoder('utf8');

  constructor(
    mode: OutputMode,
    options: { maxOutputBytes: number; tailBytes: number; knownSecrets: readonly string[]; onTranscript?: ((line: TranscriptLine) => void) | undefined },
  ) {
    const events = mode === 'codex-jsonl' || mode === 'claude-stream';
    // An event stream is read whole by its reader as it comes; its raw bytes are kept only
    // for a runtime that printed one JSON report instead (an older claude), a few kB.
    this.stdout = new CappedBuffer(events ? Math.min(options.maxOutputBytes, EVENT_STDOUT_CAP_BYTES) : options.maxOutputBytes);
    this.stderr = new CappedBuffer(options.maxOutputBytes);
    this.tail = new TailBuffer(options.tailBytes);
    this.writer = options.onTranscript ? new TranscriptWriter(options.onTranscript, options.knownSecrets) : null;
    this.sink = this.writer ?? NO_TRANSCRIPT;
    this.codex = mode === 'codex-jsonl' ? new CodexEventReader(options.maxOutputBytes, this.sink) : null;
    this.claude = mode === 'claude-stream' ? new ClaudeStreamReader(options.maxOutputBytes, this.sink) : null;
  }

  /** Structured stdout (codex JSONL, claude stream-json) is an event stream, never a summary by itself. */
  get stdoutIsEvents(): boolean {
    return this.codex !== null || this.claude !== null;
  }

  /** Whether output past the cap was dropped: an event stream's raw copy is capped lower, but its reader saw it all. */
  get truncated(): boolean {
    return (!this.stdoutIsEvents && this.stdout.truncated) || this.stderr.truncated;
  }

  /** codex: stderr carries warnings and "Reading additional input…" even on success. */
  get stderrIsNoise(): boolean {
    return this.codex !== null;
  }

  onStdout(chunk: Buffer): void {
    this.stdout.push(chunk);
    this.tail.push(chunk);
    if (this.codex) this.codex.push(chunk);
    else if (this.claude) this.claude.push(chunk);
    else if (this.writer) this.writer.delta('stdout', 'text', this.outText.write(chunk));
  }

  onStderr(chunk: Buffer): void {
    this.stderr.push(chunk);
    this.tail.push(chunk);
    this.writer?.delta('stderr', 'note', this.errText.write(chunk));
  }

  /** What the runtime's output said of the turn; the transcript's open lines close. */
  report(): RuntimeReport {
    const report = this.codex ? this.codex.end() : this.claude ? this.claude.end(this.stdout.text()) : { ok: null, text: null };
    this.writer?.end();
    return report;
  }
}
