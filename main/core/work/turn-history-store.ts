import { errorText } from '../../../shared/errors';
import { mkdir, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { HISTORY_LIMIT, TurnViewSchema, type TurnRow, type TurnView } from '../../../shared/turns';
import type { Logger } from '../base/ports';

import { checkJsonLines, type LogEnd } from '../base/json-lines';
import { leanTurn } from './lean-turn';
import { ADD, encodeLine, headOf, historyLog, parseHead, rowFields, SET, TAB, type Op } from './turn-history-codec';
import { readLegacyHistory } from './turn-history-legacy';

/** A row of the history as memory keeps it: what the list shows, and where its whole record is in the log. */
interface Entry {
  id: string;
  /** The line's head (op and list row) as JSON: a flat string costs about half what the parsed row does. */
  head: string;
  /** Byte offset and length of the row's newest line; -1 until that line is written. */
  at: number;
  size: number;
}

/** Superseded lines the log may hold before it is rewritten: a quarter of its live rows, and 1,000 more. */
const SLACK_LINES = 1_000;
const SLACK_SHARE = 0.25;
/** Marks a row replaced by a later `add` line while the log is replayed. */
const SUPERSEDED = -2;

/**
 * The finished turns, newest first, in an append-only log in the data folder
 * (`turn-history.jsonl`): memory keeps only each row's list fields and where its line
 * is, so a row's output tail and summary are read from disk when it is chosen. Each
 * change appends one line (written and synced one at a time, in order); the log is
 * rewritten (temp file + rename) once superseded lines pile up. Every line's head is
 * parsed when the log loads, its record when it is read: a torn last line (a crash
 * mid-append) is cut off and reported, any other bad line is dropped and the file copied
 * aside first, never the rest. A version-1
 * `turn-history.json` is converted once and kept as it was (an older build still reads it).
 *
 * `load()` may run while the sessions start: changes made before it ends wait for it
 * and land on top of the loaded rows.
 */
export class TurnHistoryStore {
  private entries: Entry[] = [];
  private readonly byId = new Map<string, Entry>();
  private queue: Promise<unknown> = Promise.resolve();
  private loading: Promise<void> | null = null;
  private done = false;
  /** The log's size in bytes and its line count (live and superseded). */
  private size = 0;
  private lines = 0;

  constructor(
    readonly file: string,
    private readonly log: Logger,
    private readonly limit = HISTORY_LIMIT,
    /** The version-1 file converted once when the log does not exist yet. */
    private readonly legacyFile: string | null = null,
  ) {}

  get loaded(): boolean {
    return this.done;
  }

  get total(): number {
    return this.entries.length;
  }

  /** Starts reading the log (once); resolves when the rows are in memory. Never rejects. */
  load(): Promise<void> {
    this.loading ??= this.run(() => this.replay()).then(() => {
      this.done = true;
    });
    return this.loading;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  rows(offset: number, limit: number): TurnRow[] {
    return this.entries.slice(offset, offset + limit).map(rowOf);
  }

  allRows(): TurnRow[] {
    return this.entries.map(rowOf);
  }

  /** Every row's id, newest first (no head is parsed). */
  ids(): string[] {
    return this.entries.map((e) => e.id);
  }

  /** Puts a finished turn on top (replacing a row of its id) and appends its line. */
  add(turn: TurnView): void {
    const lean = leanTurn(turn);
    const entry: Entry = { id: lean.id, head: headOf('add', lean), at: -1, size: 0 };
    this.drop(lean.id);
    this.entries.unshift(entry);
    this.byId.set(lean.id, entry);
    this.trim();
    void this.run(() => this.append('add', lean, entry));
  }

  /**
   * Merges `patch` into a row (its list fields at once, the whole record once read) and
   * appends the merged line; resolves with the merged record, or undefined when the row is
   * not kept.
   */
  update(id: string, patch: Partial<TurnView>): Promise<TurnView | undefined> {
    const entry = this.byId.get(id);
    if (entry) entry.head = JSON.stringify({ op: 'set', row: { ...rowOf(entry), ...rowFields(patch) } });
    return this.run(async () => {
      const current = this.byId.get(id);
      const whole = current ? await this.readLine(current) : undefined;
      if (!current || !whole) return undefined;
      const next = leanTurn({ ...whole, ...patch });
      current.head = headOf('set', next);
      await this.append('set', next, current);
      return next;
    });
  }

  /** A row's whole record, read from the log; undefined when it is not kept. */
  read(id: string): Promise<TurnView | undefined> {
    return this.run(async () => {
      const entry = this.byId.get(id);
      return entry ? this.readLine(entry) : undefined;
    });
  }

  /** Resolves once every change so far is on disk. */
  async flush(): Promise<void> {
    let last: Promise<unknown> | null = null;
    while (last !== this.queue) {
      last = this.queue;
      await last;
    }
  }

  /** Runs `task` after every earlier one; a failure is logged and resolves as undefined. */
  private run<T>(task: () => Promise<T>): Promise<T | undefined> {
    const next = this.queue.then(task).catch((error: unknown) => {
      this.log.warn('the turn history could not be read or written (the list is kept in memory)', { error: errorText(error) });
      return undefined;
    });
    this.queue = next;
    return next;
  }

  private drop(id: string): void {
    const old = this.byId.get(id);
    if (!old) return;
    this.byId.delete(id);
    this.entries.splice(this.entries.indexOf(old), 1);
  }

  private trim(): void {
    for (const gone of this.entries.splice(this.limit)) this.byId.delete(gone.id);
  }

  private async append(op: Op, turn: TurnView, entry: Entry): Promise<void> {
    const line = Buffer.from(encodeLine(op, turn), 'utf8');
    await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const handle = await open(this.file, 'a', 0o600);
    try {
      await handle.write(line);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    entry.at = this.size;
    entry.size = line.length;
    this.size += line.length;
    this.lines++;
    if (this.crowded()) await this.compact();
  }

  private async readLine(entry: Entry): Promise<TurnView | undefined> {
    if (entry.at < 0) return undefined;
    const handle = await open(this.file, 'r');
    try {
      const buffer = Buffer.alloc(entry.size);
      await handle.read(buffer, 0, entry.size, entry.at);
      return TurnViewSchema.parse(JSON.parse(buffer.toString('utf8', buffer.indexOf(TAB) + 1)));
    } finally {
      await handle.close();
    }
  }

  private crowded(): boolean {
    return this.lines - this.entries.length > this.entries.length * SLACK_SHARE + SLACK_LINES;
  }

  /** Rewrites the log with only its live rows, oldest first (temp file + rename). */
  private async compact(): Promise<void> {
    const text = await readFile(this.file);
    const live = this.entries.filter((e) => e.at >= 0).reverse();
    const parts: Buffer[] = [];
    let at = 0;
    const places = live.map((entry) => {
      let line = text.subarray(entry.at, entry.at + entry.size);
      // A `set` line becomes the row's `add` line: the op is the head's first field (written by encodeLine).
      if (line.toString('utf8', 0, SET.length) === SET) line = Buffer.concat([Buffer.from(ADD, 'utf8'), line.subarray(ADD.length)]);
      parts.push(line);
      const place = { entry, at, size: line.length };
      at += line.length;
      return place;
    });
    await writeFileAtomic(this.file, Buffer.concat(parts), { mode: 0o600 });
    for (const p of places) {
      p.entry.at = p.at;
      p.entry.size = p.size;
    }
    this.size = at;
    this.lines = places.length;
  }

  private async replay(): Promise<void> {
    const early = this.entries;
    const loaded: Entry[] = [];
    const byId = new Map<string, Entry>();
    const onLine = (bytes: Buffer, at: number, size: number): boolean => {
      const tab = bytes.indexOf(TAB);
      const text = tab > 0 ? bytes.toString('utf8', 0, tab) : '';
      const head = parseHead(text);
      if (!head) return false;
      const old = byId.get(head.row.id);
      if (head.op === 'add') {
        // The older copy leaves its place (marked here, filtered once at the end).
        if (old) old.at = SUPERSEDED;
        const entry: Entry = { id: head.row.id, head: text, at, size };
        loaded.push(entry);
        byId.set(head.row.id, entry);
      } else if (old) {
        old.head = text;
        old.at = at;
        old.size = size;
      }
      return true;
    };
    // The damaged lines go with the compaction below.
    const check = { what: 'the turn history', log: this.log, now: () => Date.now(), onLine, dropDamaged: false };
    let end: LogEnd & { lines: number; damaged: number };
    try {
      end = await checkJsonLines(this.file, check);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      end = (await this.migrate()) ? await checkJsonLines(this.file, check) : { size: 0, tornBytes: 0, lines: 0, damaged: 0 };
    }
    const bad = end.damaged;
    const lines = end.lines;
    this.size = end.size;
    this.lines = lines;
    // Rows added while the log loaded are newer than all of it.
    const earlyIds = new Set(early.map((e) => e.id));
    this.entries = [...early, ...loaded.reverse().filter((e) => e.at !== SUPERSEDED && !earlyIds.has(e.id))];
    this.byId.clear();
    for (const e of this.entries) this.byId.set(e.id, e);
    this.trim();
    if (bad > 0 || this.crowded()) await this.compact();
  }

  /** Converts the version-1 file, if any, into the log (durable before it is used); the old file stays. */
  private async migrate(): Promise<boolean> {
    if (!this.legacyFile) return false;
    const turns = await readLegacyHistory(this.legacyFile, this.log, this.limit);
    if (turns.length === 0) return false;
    await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.file, historyLog(turns), { mode: 0o600 });
    this.log.info('converted the turn history to the append-only log; the old file is kept for older builds', {
      rows: turns.length,
      kept: this.legacyFile,
    });
    return true;
  }
}

/** The row from a head memory keeps (written by headOf from a parsed record, or checked when loaded). */
function rowOf(entry: Entry): TurnRow {
  return (JSON.parse(entry.head) as { row: TurnRow }).row;
}
