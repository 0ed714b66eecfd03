import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { errorText } from '../../../shared/errors';
import { InstanceSettingsSchema, checkInstanceSettings } from '../connectors/sechroom/instance-settings';

/*
 * A Sechroom profile's own settings (issue 18): the Work Layer it talks to (base URL,
 * tenant, the seed's `--account` name for its sign-in), its executor instance (the seed's
 * `executor install`/`executor run` settings, with the seed's validation and messages) and
 * its git delivery (the seed's `--no-deliver`, `--no-pr`). One file per profile,
 * `profiles/<id>/sechroom.json`, written atomically and parsed with zod on every read.
 */

export const SECHROOM_CONFIG_FILE = 'sechroom.json';

const BaseUrlSchema = z
  .string({ error: '--control-plane must be the Work Layer base URL' })
  .trim()
  .max(2000)
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
      } catch {
        return false;
      }
    },
    { error: '--control-plane must be an http(s) address without credentials (the Work Layer base URL, e.g. http://127.0.0.1:7457/sechroom)' },
  )
  .transform((value) => value.replace(/\/+$/, ''));

const TenantSchema = z.string({ error: '--tenant is required' }).trim().min(1, { error: '--tenant is required' }).max(200);
const AccountSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9._-]+$/, { error: '--account must be letters, digits, dots, dashes or underscores' });

export const SechroomProfileConfigSchema = z.object({
  baseUrl: BaseUrlSchema,
  tenant: TenantSchema,
  /** The seed's `--account`: whose sign-in (the secret store keeps one per base URL and account). */
  account: AccountSchema.default('default'),
  instance: InstanceSettingsSchema,
  /** The seed's `--no-deliver`: false leaves the turn's changes in the root, no branch, no push. */
  deliver: z.boolean().default(true),
  /** The seed's `--no-pr`: false pushes the branch without a pull request. */
  raisePr: z.boolean().default(true),
});
export type SechroomProfileConfig = z.output<typeof SechroomProfileConfigSchema>;

export type ConfigCheck = { ok: true; config: SechroomProfileConfig } | { ok: false; message: string; field: string };

/** The first problem in the seed's words where it has them (the instance settings' own messages). */
export function checkSechroomConfig(input: unknown): ConfigCheck {
  const record = input && typeof input === 'object' ? (input as Record<string, unknown>) : {};
  const instance = checkInstanceSettings(record.instance ?? {});
  if (!instance.ok) return { ok: false, message: instance.message, field: `instance.${instance.field}` };
  const parsed = SechroomProfileConfigSchema.safeParse({ ...record, instance: record.instance ?? {} });
  if (parsed.success) return { ok: true, config: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, message: issue?.message ?? 'invalid Sechroom settings', field: issue?.path.map(String).join('.') ?? '' };
}

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
