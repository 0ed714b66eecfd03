import { z } from 'zod';
import { UnitKindSchema } from '../../../../shared/protocol';
import { NoteJournal } from '../../sessions/note-journal';

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
 * A note for every unit between its start and its result reaching the outbox (the journal
 * both planes keep). After a crash the notes that are left are exactly the units that died
 * with the process, and each is reported failed ("runner restarted") once.
 */
export class RunningJournal extends NoteJournal<RunningRecord> {
  constructor(dir: string) {
    super(dir, RunningRecordSchema, (record) => record.unit.id);
  }

  record(record: RunningRecord): Promise<void> {
    return this.write(record);
  }

  clear(unitId: string): Promise<void> {
    return this.remove(unitId);
  }

  /** What a previous process left behind; unreadable notes are removed (nothing can be reported for them). */
  leftovers(): Promise<RunningRecord[]> {
    return this.read();
  }
}
