import { errorText } from '../../../shared/errors';
import { mkdir, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { HISTORY_LIMIT, TurnViewSchema, type TurnView } from '../../../shared/turns';
import type { Logger } from '../ports';

import { leanTurn as lean } from './lean-turn';

const FileSchema = z.object({ version: z.literal(1), turns: z.array(z.unknown()) });

/**
 * The finished turns, newest first, kept in the data folder so the Turns view survives a
 * restart: at most HISTORY_LIMIT rows, written whole and atomically (temp file + rename)
 * after each change, one write at a time (changes that arrive during a write are
 * folded into the next one). Every row is parsed on read; a bad row is dropped, a
 * damaged file is set aside and reported, never silently lost.
 */
export class TurnHistoryStore {
  private pending: readonly TurnView[] | null = null;
  private writing: Promise<void> | null = null;

  constructor(
    readonly file: string,
    private readonly log: Logger,
    private readonly limit = HISTORY_LIMIT,
  ) {}

  async load(): Promise<TurnView[]> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn('the turn history could not be read', { error: errorText(error) });
      return [];
    }
    let parsed: z.infer<typeof FileSchema>;
    try {
      parsed = FileSchema.parse(JSON.parse(text));
    } catch (error) {
      const aside = `${this.file}.damaged-${Date.now()}`;
      await rename(this.file, aside).catch(() => undefined);
      this.log.warn('the turn history file was damaged; it was set aside and history starts empty', { keptAs: aside, error: errorText(error) });
      return [];
    }
    const turns: TurnView[] = [];
    let dropped = 0;
    for (const raw of parsed.turns.slice(0, this.limit)) {
      const row = TurnViewSchema.safeParse(raw);
      if (row.success) turns.push(row.data);
      else dropped++;
    }
    if (dropped > 0) this.log.warn('dropped unreadable rows of the turn history', { dropped });
    return turns;
  }

  /** Queues the history to be written; resolves when a write that includes it has landed. */
  save(history: readonly TurnView[]): Promise<void> {
    this.pending = history;
    this.writing ??= this.drain().finally(() => (this.writing = null));
    return this.writing;
  }

  /** Resolves once everything saved so far is on disk. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    while (this.pending) {
      const rows = this.pending.slice(0, this.limit).map(lean);
      this.pending = null;
      try {
        await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
        await writeFileAtomic(this.file, JSON.stringify({ version: 1, turns: rows }), { mode: 0o600 });
      } catch (error) {
        this.log.warn('the turn history could not be saved (it is kept in memory)', { error: errorText(error) });
      }
    }
  }
}
