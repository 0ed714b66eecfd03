import { z } from 'zod';
import { NoteJournal } from '../../sessions/note-journal';

export const InflightNoteSchema = z.object({
  instanceKey: z.string().min(1),
  memoryId: z.string().min(1),
  leaseId: z.string().min(1),
  title: z.string().nullable(),
  claimedAt: z.string(),
});
export type InflightNote = z.infer<typeof InflightNoteSchema>;

/**
 * A note for every claimed task until its completion is in the outbox (or it is abandoned),
 * in the journal both planes keep. After a crash the notes left are the turns that died with
 * the process: the restarted session says so in their records; their leases expire on their
 * own. No claim token is written (it is a secret, and nothing is sent for an abandoned lease).
 */
export class InflightJournal extends NoteJournal<InflightNote> {
  constructor(dir: string) {
    super(dir, InflightNoteSchema, (note) => note.leaseId);
  }

  begin(note: InflightNote): Promise<void> {
    return this.write(note);
  }

  end(leaseId: string): Promise<void> {
    return this.remove(leaseId);
  }

  /** What a previous process left for this instance, removed as it is read (each is reported once). */
  async takeLeftovers(instanceKey: string): Promise<InflightNote[]> {
    const mine = (await this.read()).filter((note) => note.instanceKey === instanceKey);
    for (const note of mine) await this.remove(note.leaseId);
    return mine;
  }
}
