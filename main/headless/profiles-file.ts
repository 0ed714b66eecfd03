import { z } from 'zod';
import { ConnectorKindSchema, isProfileSetting, MAX_PROFILES, ProfileIdSchema, ProfileNameSchema } from '../../shared/profiles';
import { parseSetting, SETTING_KEYS, type SettingKey, type SettingsPatch } from '../../shared/settings';

/** One profile of a profiles file: created when missing; its settings apply as overrides (never saved). */
export interface ProfileEntry {
  id: string;
  name: string;
  connector: z.infer<typeof ConnectorKindSchema>;
  overrides: SettingsPatch;
}

const EntrySchema = z
  .object({
    id: ProfileIdSchema,
    name: ProfileNameSchema.optional(),
    connector: ConnectorKindSchema.default('rost'),
    settings: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();
const FileSchema = z
  .object({
    profiles: z
      .array(EntrySchema)
      .min(1, { error: 'list at least one profile.' })
      .max(MAX_PROFILES, { error: `list at most ${MAX_PROFILES} profiles.` }),
  })
  .strict();

/**
 * The headless host's profiles file (`--profiles <file>`), for several profiles in one host:
 *
 *     { "profiles": [ { "id": "lab", "name": "Lab", "settings": { "controlPlaneUrl": "https://lab.example", "maxSessions": 2 } } ] }
 *
 * Settings are the per-profile ones (host-wide settings are set once, for the host), each
 * checked with the settings' own messages. Every problem names the file and where in it.
 */
export function parseProfilesFile(text: string, file: string): { ok: true; profiles: ProfileEntry[] } | { ok: false; message: string } {
  const problem = (where: string, message: string) => ({ ok: false as const, message: `${file}: ${where ? `${where}: ` : ''}${message}` });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return problem('', 'is not JSON.');
  }
  const parsed = FileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return problem(
      issue.path
        .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
        .join('')
        .replace(/^\./, ''),
      issue.message,
    );
  }
  const seen = new Set<string>();
  const profiles: ProfileEntry[] = [];
  for (const [i, entry] of parsed.data.profiles.entries()) {
    const where = `profiles[${i}]`;
    if (seen.has(entry.id)) return problem(`${where}.id`, `the profile "${entry.id}" is listed twice.`);
    seen.add(entry.id);
    const overrides: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(entry.settings)) {
      if (!(SETTING_KEYS as readonly string[]).includes(key)) return problem(`${where}.settings`, `Unknown setting: ${key}.`);
      if (!isProfileSetting(key as SettingKey))
        return problem(`${where}.settings.${key}`, 'is a host-wide setting: set it once for the host, not per profile.');
      const checked = parseSetting(key as SettingKey, value, key);
      if (!checked.ok) return problem(`${where}.settings`, checked.error.message);
      overrides[key] = checked.value;
    }
    profiles.push({ id: entry.id, name: entry.name ?? entry.id, connector: entry.connector, overrides: overrides as SettingsPatch });
  }
  return { ok: true, profiles };
}
