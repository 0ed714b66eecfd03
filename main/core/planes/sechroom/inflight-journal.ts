import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';

export const InflightNoteSchema = z.object({
  instanceKey: z.string().min(1),
  memoryId: z.string().min(1),
  leaseId: z.string().min(1),
  title: z.string().nullable(),
  claimedAt: z.string(),
});
export type InflightNote = z.infer<typeof InflightNoteSchema>;

/**
 * A note on disk for every claimed task until its completion is in the outbox (or it is
 * abandoned). After a crash the notes left are the turns that died with the process: the
 * restarted session says so in their records; their leases expire on their own. No claim
 * token is written (it is a secret, and nothing is sent for an abandoned lease).
 */
export class InflightJournal {
  constructor(private readonly dir: string) {}

  private file(leaseId: string): string {
    return path.join(this.dir, `${Buffer.from(leaseId).toString('base64url')}.json`);
  }

  async begin(note: InflightNote): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.file(note.leaseId), JSON.stringify(note), { mode: 0o600 });
  }

  async end(leaseId: string): Promise<void> {
    await rm(this.file(leaseId), { force: true });
  }

  /** What a previous process left, removed as it is read (each is reported once); unreadable notes are dropped. */
  async takeLeftovers(instanceKey: string): Promise<InflightNote[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const out: InflightNote[] = [];
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const file = path.join(this.dir, name);
      try {
        const note = InflightNoteSchema.parse(JSON.parse(await readFile(file, 'utf8')));
        if (note.instanceKey !== instanceKey) continue;
        out.push(note);
      } catch {
        // Nothing can be said about a note we cannot read.
      }
      await rm(file, { force: true });
    }
    return out;
  }
}
