import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CommandFailure } from '../../../main/core/base/dispatch';
import { saveNewSechroomConfig } from '../../../main/core/planes/sechroom/sechroom-config';
import { ProfileStore } from '../../../main/core/sessions/profile-store';

let tmp: string | null = null;
afterEach(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
  tmp = null;
});

const DEFAULT = { id: 'default', name: 'Default', connector: 'rost' as const };

/** A store in a fresh data folder. */
async function storeIn(): Promise<{ store: ProfileStore; dir: string }> {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'profiles-'));
  const dir = path.join(tmp, 'data');
  return { store: new ProfileStore(dir), dir };
}

describe('a setting change that cannot be saved', () => {
  it('the list of profiles: the change answers not_saved and the list stays as it was, in memory and on disk', async () => {
    const { store, dir } = await storeIn();
    await store.save([DEFAULT]);
    const saved = await readFile(store.file, 'utf8');
    // The data folder becomes a file: the write cannot happen.
    await rm(dir, { recursive: true });
    await writeFile(dir, 'not a folder');
    const added = store.save([DEFAULT, { id: 'second', name: 'Second', connector: 'rost' }]);
    await expect(added).rejects.toBeInstanceOf(CommandFailure);
    await expect(added).rejects.toMatchObject({
      code: 'not_saved',
      message: expect.stringMatching(/^The list of profiles could not be saved, so nothing changed: /),
    });
    expect(store.all()).toEqual([DEFAULT]);
    expect(JSON.parse(saved)).toMatchObject({ profiles: [DEFAULT] });
    // Writable again: the next save works as usual.
    await rm(dir);
    await store.save([DEFAULT, { id: 'second', name: 'Second', connector: 'rost' }]);
    expect(store.all().map((p) => p.id)).toEqual(['default', 'second']);
  });

  it('the Sechroom settings: the change answers not_saved, saying so', async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'sechroom-save-'));
    await writeFile(path.join(tmp, 'file'), 'x');
    const saving = saveNewSechroomConfig(path.join(tmp, 'file', 'profile'), {} as never);
    await expect(saving).rejects.toBeInstanceOf(CommandFailure);
    await expect(saving).rejects.toMatchObject({
      code: 'not_saved',
      message: expect.stringMatching(/^The Sechroom settings could not be saved, so nothing changed: E/),
    });
  });
});
