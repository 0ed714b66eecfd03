import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { UnitKindSchema } from '../../../../shared/protocol';

export const RunningRecordSchema = z.object({
  runnerId: z.string().min(1),
  unit: z.object({ id: z.string().min(1), kind: UnitKindSchema }),
  attempt: z.number().int().min(1),
  runtime: z.enum(['claude', 'codex']).nullable(),
  startedAt: z.string(),
  pid: z.number().int().nullable(),
  /** For the Turns row a restart shows (absent in notes of older builds). */
  seat: z.object({ id: z.string(), name: z.string().nullable() }).nullable().optional(),
  buildRequestId: z.string().nullable().optional(),
  /** The runtime's (launcher's) start time token, so a restart stops only that very process (pids are reused). */
  processStart: z.string().nullable().optional(),
});
export type RunningRecord = z.infer<typeof RunningRecordSchema>;

/**
 * A note on disk for every unit between its start and its result reaching the outbox.
 * After a crash the notes that are left are exactly the units that died with the
 * process, and each is reported failed ("runner restarted") once.
 */
export class RunningJournal {
  constructor(private readonly dir: string) {}

  private file(unitId: string): string {
    return path.join(this.dir, `${Buffer.from(unitId).toString('base64url')}.json`);
  }

  async record(record: RunningRecord): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.file(record.unit.id), JSON.stringify(record), { mode: 0o600 });
  }

  async clear(unitId: string): Promise<void> {
    await rm(this.file(unitId), { force: true });
  }

  /** What a previous process left behind; unreadable notes are removed (nothing can be reported for them). */
  async leftovers(): Promise<RunningRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    // A process killed inside an atomic write leaves its temp file (`<note>.json.<hex>`) beside
    // the note, or instead of it when the rename never happened. Beside it, it is dropped;
    // alone, it becomes the note, so the unit is reported once and cleared like any other.
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
    const out: RunningRecord[] = [];
    for (const name of notes) {
      const file = path.join(this.dir, name);
      try {
        out.push(RunningRecordSchema.parse(JSON.parse(await readFile(file, 'utf8'))));
      } catch {
        await rm(file, { force: true });
      }
    }
    return out;
  }
}
