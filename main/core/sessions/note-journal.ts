import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { z } from 'zod';

/**
 * The running journal both planes keep: a note on disk for every turn between its start and
 * its result reaching the outbox. After a crash the notes left are exactly the turns that died
 * with the process, so each is reported once. One file per note, written atomically (0600).
 */
export class NoteJournal<N> {
  constructor(
    private readonly dir: string,
    private readonly schema: z.ZodType<N>,
    private readonly keyOf: (note: N) => string,
  ) {}

  protected async write(note: N): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.file(this.keyOf(note)), JSON.stringify(note), { mode: 0o600 });
  }

  protected async remove(key: string): Promise<void> {
    await rm(this.file(key), { force: true });
  }

  /** What a previous process left; unreadable notes are removed (nothing can be reported for them). */
  protected async read(): Promise<N[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const out: N[] = [];
    for (const name of await this.repairTorn(names)) {
      const file = path.join(this.dir, name);
      try {
        out.push(this.schema.parse(JSON.parse(await readFile(file, 'utf8'))));
      } catch {
        await rm(file, { force: true });
      }
    }
    return out;
  }

  /**
   * A process killed inside an atomic write leaves its temp file (`<note>.json.<hex>`) beside
   * the note, or instead of it when the rename never happened. Beside it, it is dropped;
   * alone, it becomes the note, so the turn is reported once and cleared like any other.
   */
  private async repairTorn(names: string[]): Promise<Set<string>> {
    const notes = new Set(names.filter((name) => name.endsWith('.json')));
    for (const name of names) {
      const note = /^(.+\.json)\.[^.]+$/.exec(name)?.[1];
      if (!note) continue;
      if (notes.has(note)) await rm(path.join(this.dir, name), { force: true });
      else {
        await rename(path.join(this.dir, name), path.join(this.dir, note)).catch(() => rm(path.join(this.dir, name), { force: true }));
        notes.add(note);
      }
    }
    return notes;
  }

  private file(key: string): string {
    return path.join(this.dir, `${Buffer.from(key).toString('base64url')}.json`);
  }
}
