import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { errorText } from '../../../../shared/errors';
import { CommandFailure } from '../../base/dispatch';
import { checkSechroomConfig, type SechroomProfileConfig } from '../../../../shared/sechroom-instance-settings';

export { checkSechroomConfig, type SechroomProfileConfig };

/*
 * A Sechroom profile's own settings: the Work Layer it talks to (base URL,
 * tenant, the seed's `--account` name for its sign-in), its executor instance (the seed's
 * `executor install`/`executor run` settings, with the seed's validation and messages) and
 * its git delivery (the seed's `--no-deliver`, `--no-pr`). One file per profile,
 * `profiles/<id>/sechroom.json`, written atomically and parsed with zod on every read
 * (the schema is shared/sechroom-instance-settings.ts, which the Settings view checks with too).
 */

export const SECHROOM_CONFIG_FILE = 'sechroom.json';

/** Reads a profile's Sechroom settings; null when it has none yet. A damaged file is an error with its reason. */
export async function loadSechroomConfig(dir: string): Promise<SechroomProfileConfig | null> {
  let text: string;
  try {
    text = await readFile(path.join(dir, SECHROOM_CONFIG_FILE), 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return null;
    throw new Error(`cannot read ${SECHROOM_CONFIG_FILE}: ${errorText(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${SECHROOM_CONFIG_FILE} is not valid JSON: ${errorText(error)}`);
  }
  const checked = checkSechroomConfig(json);
  if (!checked.ok) throw new Error(`${SECHROOM_CONFIG_FILE}: ${checked.field ? `${checked.field}: ` : ''}${checked.message}`);
  return checked.config;
}

export async function saveSechroomConfig(dir: string, config: SechroomProfileConfig): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(path.join(dir, SECHROOM_CONFIG_FILE), `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}

/** New settings from the operator: saved, or a failure that says they were not (`not_saved`), nothing changed. */
export async function saveNewSechroomConfig(dir: string, config: SechroomProfileConfig): Promise<void> {
  try {
    await saveSechroomConfig(dir, config);
  } catch (error) {
    throw new CommandFailure('not_saved', `The Sechroom settings could not be saved, so nothing changed: ${errorText(error)}`);
  }
}
