import { createHash } from 'node:crypto';
import { appendFile, mkdir, open, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { errorText } from '../../../shared/errors';
import { TranscriptLineSchema, type TranscriptLine, type TranscriptUpdate, type TranscriptView } from '../../../shared/transcript';
import { checkJsonLines } from '../base/json-lines';
import type { Logger } from '../base/ports';

/**
 * The live transcripts of the running turns. Memory keeps the newest lines of each turn
 * up to a budget (the transcriptMemoryKb setting); every line, once closed, is appended to
 * the turn's file in the transcripts folder beside the history log, so a finished,
 * failed or canceled turn keeps what it streamed and a turn printing megabytes costs
 * the host its budget, not its output.
 *
 * Changes go to the window batched (one `turns:transcript` per event-hub window); when a
 * turn prints faster than the window can show, the oldest unsent lines of the batch are
 * counted as skipped (they are on disk) instead of queued without bound.
 *
 * Before the first append to a turn's file (a file a crash may have left, when the turn
 * runs again) it is checked as every JSON-lines file is (main/core/base/json-lines.ts): a
 * torn last line is cut off and a damaged line set aside, with a warning.
 */
interface Live {
  /** Newest lines by number; an open line is updated in place. */
  lines: Map<number, TranscriptLine>;
  bytes: number;
  /** Changed since the last batch. */
  pending: Map<number, TranscriptLine>;
  skipped: number;
  /** Closed lines waiting for the file, and their size. */
  queued: string[];
  queuedBytes: number;
  writing: Promise<void> | null;
  diskBytes: number;
  finished: boolean;
  /** The file was checked (and repaired) before this process appended to it. */
  checked: boolean;
}

/** What one kept line costs beside its text (the object, the map entry). */
const LINE_OVERHEAD = 64;
/** Lines of one turn a batch carries at most. */
const BATCH_LINES = 400;
/** A turn's file stops growing here (one note says so). */
const DISK_MAX_BYTES = 64 * 1024 * 1024;
/** Closed lines a turn may have waiting for the disk before its runtime's output is paused (backlog). */
const QUEUE_MAX_BYTES = 1024 * 1024;
/** Files kept beyond the history's turns are swept at start. */
const FILE_EXT = '.jsonl';

export function transcriptFileName(id: string): string {
  return `${createHash('sha256').update(id).digest('hex').slice(0, 40)}${FILE_EXT}`;
}

export class TurnTranscripts {
  private readonly live = new Map<string, Live>();
  private dirReady: Promise<void> | null = null;

  constructor(
    private readonly dir: string,
    private readonly memoryBytes: () => number,
    private readonly notify: () => void,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** A line of a running turn (again, under the same number, when it grew). */
  add(id: string, line: TranscriptLine): void {
    let turn = this.live.get(id);
    if (!turn) {
      turn = {
        lines: new Map(),
        bytes: 0,
        pending: new Map(),
        skipped: 0,
        queued: [],
        queuedBytes: 0,
        writing: null,
        diskBytes: 0,
        finished: false,
        checked: false,
      };
      this.live.set(id, turn);
    }
    if (turn.finished) return;
    const before = turn.lines.get(line.n);
    if (before) turn.bytes -= cost(before);
    turn.lines.set(line.n, line);
    turn.bytes += cost(line);
    this.evict(turn);
    turn.pending.set(line.n, line);
    if (turn.pending.size > BATCH_LINES) {
      const oldest = turn.pending.keys().next().value as number;
      turn.pending.delete(oldest);
      turn.skipped++;
    }
    if (!line.open) this.queue(id, turn, line);
    this.notify();
  }

  /** The turn ended: its lines are on disk once this resolves, and memory lets them go. */
  async finish(id: string): Promise<void> {
    const turn = this.live.get(id);
    if (!turn) return;
    turn.finished = true;
    turn.lines.clear();
    turn.bytes = 0;
    while (turn.writing) await turn.writing;
    if (turn.pending.size === 0) this.live.delete(id);
  }

  /** The changes since the last call, one entry per turn; null when nothing changed. */
  drain(): TranscriptUpdate[] | null {
    const updates: TranscriptUpdate[] = [];
    for (const [id, turn] of this.live) {
      if (turn.pending.size > 0 || turn.skipped > 0) {
        updates.push({ id, lines: [...turn.pending.values()].sort((a, b) => a.n - b.n), skipped: turn.skipped });
        turn.pending = new Map();
        turn.skipped = 0;
      }
      if (turn.finished && !turn.writing) this.live.delete(id);
    }
    return updates.length > 0 ? updates : null;
  }

  /** The newest lines of a turn, running (memory) or finished (the tail of its file); null when nothing was kept. */
  async view(id: string): Promise<TranscriptView | null> {
    const turn = this.live.get(id);
    if (turn && !turn.finished) {
      const lines = [...turn.lines.values()].sort((a, b) => a.n - b.n);
      return { id, lines, earlier: lines[0]?.n ?? 0 };
    }
    if (turn?.writing) await turn.writing;
    return this.readTail(id);
  }

  /**
   * Null while the turn's lines reach the disk as fast as they come; once more than
   * QUEUE_MAX_BYTES wait for it, a promise that resolves when they are written (or the
   * write failed): the runtime's output is paused until then, so a disk slower than the
   * runtime prints holds the runtime back instead of piling its output up in memory.
   */
  backlog(id: string): Promise<void> | null {
    const turn = this.live.get(id);
    if (!turn?.writing || turn.queuedBytes <= QUEUE_MAX_BYTES) return null;
    return turn.writing;
  }

  /**
   * Bytes the transcripts hold in memory now, in two parts: the lines kept to view (held to the budget) and the closed lines
   * waiting for their append (a runtime whose output goes through `backlog` is paused past
   * QUEUE_MAX_BYTES; the codex app-server's shared output is not).
   */
  memory(): { kept: number; queued: number } {
    let kept = 0;
    let queued = 0;
    for (const turn of this.live.values()) {
      kept += turn.bytes;
      queued += turn.queuedBytes;
    }
    return { kept, queued };
  }

  /** Removes the files of turns no longer kept (neither running nor in the history). */
  async sweep(keep: Iterable<string>): Promise<number> {
    const running = [...this.live].filter(([, turn]) => !turn.finished).map(([id]) => id);
    const wanted = new Set([...keep, ...running].map(transcriptFileName));
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return 0;
    }
    const stale = names.filter((name) => name.endsWith(FILE_EXT) && !wanted.has(name));
    await Promise.all(stale.map((name) => rm(path.join(this.dir, name), { force: true }).catch(() => undefined)));
    return stale.length;
  }

  private evict(turn: Live): void {
    const budget = this.memoryBytes();
    for (const [n, line] of turn.lines) {
      if (turn.bytes <= budget) return;
      turn.lines.delete(n);
      turn.bytes -= cost(line);
    }
  }

  private queue(id: string, turn: Live, line: TranscriptLine): void {
    if (turn.diskBytes >= DISK_MAX_BYTES) return;
    const text = `${JSON.stringify(line)}\n`;
    turn.diskBytes += text.length;
    turn.queued.push(text);
    turn.queuedBytes += text.length;
    if (turn.diskBytes >= DISK_MAX_BYTES) {
      const note = JSON.stringify({ n: line.n, kind: 'note', text: 'the transcript file is full; later lines are not kept' });
      turn.queued.push(`${note}\n`);
    }
    if (!turn.writing) turn.writing = this.write(id, turn);
  }

  /** One append at a time per turn, of everything queued meanwhile. */
  private async write(id: string, turn: Live): Promise<void> {
    try {
      this.dirReady ??= mkdir(this.dir, { recursive: true, mode: 0o700 }).then(() => undefined);
      await this.dirReady;
      const file = path.join(this.dir, transcriptFileName(id));
      if (!turn.checked) await this.check(file);
      turn.checked = true;
      while (turn.queued.length > 0) {
        const text = turn.queued.join('');
        turn.queued = [];
        turn.queuedBytes = 0;
        await appendFile(file, text, { mode: 0o600 });
      }
    } catch (error) {
      this.dirReady = null;
      turn.queued = [];
      turn.queuedBytes = 0;
      this.log.warn('could not write a turn transcript', { unit: id, error: errorText(error) });
    } finally {
      turn.writing = null;
    }
  }

  /** A file left by an earlier run of the turn, repaired; a missing one is fine. */
  private async check(file: string): Promise<void> {
    try {
      await checkJsonLines(file, { what: 'the turn transcript', log: this.log, now: this.now, onLine: isTranscriptLine, dropDamaged: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  private async readTail(id: string): Promise<TranscriptView | null> {
    let handle;
    try {
      handle = await open(path.join(this.dir, transcriptFileName(id)), 'r');
    } catch {
      return null;
    }
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, this.memoryBytes());
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      const rows = buffer.toString('utf8').split('\n');
      if (length < size) rows.shift(); // starts mid-line
      const lines = rows.flatMap((row) => {
        if (!row) return [];
        try {
          const parsed = TranscriptLineSchema.safeParse(JSON.parse(row));
          return parsed.success ? [parsed.data] : [];
        } catch {
          return [];
        }
      });
      return { id, lines, earlier: lines[0]?.n ?? 0 };
    } finally {
      await handle.close();
    }
  }
}

function cost(line: TranscriptLine): number {
  return line.text.length * 2 + LINE_OVERHEAD;
}

function isTranscriptLine(line: Buffer): boolean {
  try {
    return TranscriptLineSchema.safeParse(JSON.parse(line.toString('utf8'))).success;
  } catch {
    return false;
  }
}
