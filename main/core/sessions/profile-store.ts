import { rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { errorText } from '../../../shared/errors';
import { DEFAULT_PROFILE_ID, MAX_PROFILES, ProfileSchema, type Profile } from '../../../shared/profiles';
import { CommandFailure } from '../base/dispatch';
import { readJsonFile, writePrivateFile } from '../base/json-file';
import { runnerAccount } from '../secrets/secret-store';

export const PROFILES_FILE = 'profiles.json';
export const PROFILES_DIR = 'profiles';

const ProfilesDocumentSchema = z.object({
  version: z.literal(1),
  profiles: z
    .array(ProfileSchema)
    .min(1)
    .max(MAX_PROFILES)
    .refine((list) => new Set(list.map((p) => p.id)).size === list.length, { error: 'two profiles have the same id' })
    .refine((list) => list.some((p) => p.id === DEFAULT_PROFILE_ID), { error: 'the default profile is missing' }),
});

/** A profile's folder: its state file, outbox, running journal and settings. */
export function profileDir(dataDir: string, id: string): string {
  return path.join(dataDir, PROFILES_DIR, id);
}

/**
 * The secret-store account of a profile's runner secret. The `default` profile keeps the
 * single-runner name (`runner:<origin>`), so a migrated secret stays where an older build
 * looks for it; every other profile has its own (`runner:<id>:<origin>`).
 */
export function profileSecretAccount(id: string, controlPlaneUrl: string): string {
  const account = runnerAccount(controlPlaneUrl);
  return id === DEFAULT_PROFILE_ID ? account : account.replace(/^runner:/, `runner:${id}:`);
}

/** The list of profiles (`profiles.json`, written atomically, owner-only). */
export class ProfileStore {
  private list: Profile[] = [];
  private writing: Promise<void> = Promise.resolve();

  constructor(readonly dataDir: string) {}

  get file(): string {
    return path.join(this.dataDir, PROFILES_FILE);
  }

  all(): readonly Profile[] {
    return this.list;
  }

  /** Reads the list; null when there is none yet (a fresh or single-runner data folder). Throws with a clear message when it is damaged. */
  async load(): Promise<readonly Profile[] | null> {
    const read = await readJsonFile(this.file, ProfilesDocumentSchema).catch((error: unknown) => {
      throw new Error(`The profiles file ${this.file} could not be read: ${errorText(error)}`);
    });
    if (read.kind === 'missing') return null;
    if (read.kind === 'damaged') throw new Error(`The profiles file ${this.file} is not valid: ${read.why}`);
    this.list = read.value.profiles;
    return this.list;
  }

  /** Writes the list; when the write fails the list stays as it was and the failure says so (`not_saved`). */
  async save(list: readonly Profile[]): Promise<void> {
    const doc = ProfilesDocumentSchema.parse({ version: 1, profiles: list });
    const before = this.list;
    this.list = doc.profiles;
    const write = this.writing.then(() => writePrivateFile(this.file, `${JSON.stringify(doc, null, 2)}\n`));
    this.writing = write.catch(() => undefined);
    try {
      await write;
    } catch (error) {
      // A later save (queued behind this one) decides the list; otherwise it is what it was.
      if (this.list === doc.profiles) this.list = before;
      throw new CommandFailure('not_saved', `The list of profiles could not be saved, so nothing changed: ${errorText(error)}`);
    }
  }

  /** Removes a profile's folder (after it left the list). */
  async removeFiles(id: string): Promise<void> {
    await rm(profileDir(this.dataDir, id), { recursive: true, force: true });
  }
}
