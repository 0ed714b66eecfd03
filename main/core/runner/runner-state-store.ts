import { z } from 'zod';
import { readJsonFile, setAside, writePrivateFile } from '../base/json-file';

/**
 * The runner's own state (not preferences): who this machine is to the control plane
 * and the opaque Claude resume ids. Never the secret, which lives in the SecretStore.
 * Owner-only, written atomically (temp file + rename).
 */
export const RuntimeSessionSchema = z.object({
  claude_session_id: z.string().min(1).optional(),
  updated_at: z.string().optional(),
});

/** A pause outlives the process: the app, the host or the machine restarting keeps it. */
export const PauseRecordSchema = z.object({
  /** When it was paused (ISO). */
  at: z.string(),
  /** When a timed pause ends (ISO), or null until resumed. */
  until: z.string().nullable(),
  /** Who paused: the operator at this machine (window, tray, terminal). */
  by: z.literal('you'),
  note: z.string().max(500).nullable(),
});

export const RunnerStateSchema = z.object({
  version: z.literal(1),
  identity: z
    .object({
      runnerId: z.string().min(1),
      tenantId: z.string().min(1).nullable(),
      /** The tenant's name as the control plane gave it at pairing (absent: it gave none, or an older file). */
      tenantName: z.string().min(1).max(200).nullable().optional(),
      name: z.string().min(1),
      controlPlaneUrl: z.string().url(),
      pairedAt: z.string(),
    })
    .nullable(),
  runtimeSessions: z.record(z.string(), RuntimeSessionSchema),
  /** Absent in files written before pauses were kept. */
  pause: PauseRecordSchema.nullable().optional(),
});
export type RunnerState = z.infer<typeof RunnerStateSchema>;
export type RunnerIdentity = NonNullable<RunnerState['identity']>;

const EMPTY: RunnerState = { version: 1, identity: null, runtimeSessions: {} };

export class RunnerStateStore {
  private state: RunnerState = EMPTY;
  private writing: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  /** Loads the file; a damaged one is set aside (never silently lost) and reported. */
  async load(): Promise<{ warning: string | null }> {
    const read = await readJsonFile(this.file, RunnerStateSchema);
    if (read.kind === 'damaged') {
      const aside = await setAside(this.file);
      this.state = EMPTY;
      return { warning: `The runner state file was damaged (${read.why}); it was kept as ${aside} and this machine starts unpaired.` };
    }
    if (read.kind === 'ok') this.state = read.value;
    return { warning: null };
  }

  get(): RunnerState {
    return this.state;
  }

  async update(change: (state: RunnerState) => RunnerState): Promise<void> {
    this.state = RunnerStateSchema.parse(change(this.state));
    const snapshot = this.state;
    // Writes are serialized so the last state always lands last; one that failed (a full
    // disk) is its caller's to report and must not turn away every write after it.
    this.writing = this.writing.catch(() => undefined).then(() => writePrivateFile(this.file, `${JSON.stringify(snapshot, null, 2)}\n`));
    return this.writing;
  }
}
