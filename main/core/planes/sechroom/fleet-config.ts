import { errorText } from '../../../../shared/errors';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { checkInstanceSettings, type InstanceSettings, type InstanceSettingsInput } from '../../../../shared/sechroom-instance-settings';

/*
 * `sechroom executor fleet --config <file>` (seed B1.2): one instance per entry. The three
 * structural messages are the seed's; each entry's values then go through the instance
 * settings' own validation (the seed hands them to a child `executor run` as strings and
 * validates only two of them there), named by the entry's key.
 */

export const FLEET_NEEDS_INSTANCES = "fleet config must contain a non-empty 'instances' array";
export const FLEET_ENTRY_NEEDS_KEYS = "each fleet instance requires string 'root' and 'instanceKey'";
export const fleetDuplicateKey = (key: string) => `duplicate fleet instanceKey '${key}'`;

/** Entry key → instance setting, as the seed maps them to `executor run` flags. */
const ENTRY_KEYS = {
  lane: 'laneId',
  model: 'model',
  connector: 'connectorId',
  ttl: 'ttlSeconds',
  pollInterval: 'pollIntervalSeconds',
  heartbeatInterval: 'heartbeatIntervalSeconds',
  turnTimeout: 'turnTimeoutSeconds',
  resumeTurnTimeout: 'resumeTurnTimeoutSeconds',
  drainTimeout: 'drainTimeoutSeconds',
  codexBin: 'codexBin',
  sandbox: 'sandbox',
  usageReserve: 'usageReservePercent',
} as const satisfies Record<string, keyof InstanceSettingsInput>;

const TEXT_SETTINGS = new Set<string>(['laneId', 'model', 'connectorId', 'codexBin', 'sandbox']);

export interface FleetInstance {
  settings: InstanceSettings;
  /** Keys of the entry that mean nothing to the seed's fleet (ignored, as the seed does). */
  ignoredKeys: string[];
}

export class FleetConfigError extends Error {
  override readonly name = 'FleetConfigError';
}

/**
 * Parses a fleet config's text. `root` is resolved against `baseDir` (the config file's
 * folder: an import must not depend on the app's cwd; the seed uses its cwd). [v1]
 */
export function parseFleetConfig(text: string, source: string, baseDir: string): FleetInstance[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new FleetConfigError(`${source} is not valid JSON: ${errorText(error)}`);
  }
  const instances = parsed && typeof parsed === 'object' ? (parsed as { instances?: unknown }).instances : undefined;
  if (!Array.isArray(instances) || instances.length === 0) throw new FleetConfigError(FLEET_NEEDS_INSTANCES);
  const keys = new Set<string>();
  for (const entry of instances as unknown[]) {
    const e = entry as { root?: unknown; instanceKey?: unknown } | null;
    if (!e || typeof e !== 'object' || typeof e.root !== 'string' || typeof e.instanceKey !== 'string') throw new FleetConfigError(FLEET_ENTRY_NEEDS_KEYS);
    if (keys.has(e.instanceKey)) throw new FleetConfigError(fleetDuplicateKey(e.instanceKey));
    keys.add(e.instanceKey);
  }
  return (instances as Array<Record<string, unknown>>).map((entry) => {
    const input: Record<string, unknown> = { instanceKey: entry.instanceKey, root: path.resolve(baseDir, entry.root as string) };
    const ignoredKeys: string[] = [];
    for (const [key, value] of Object.entries(entry)) {
      if (key === 'root' || key === 'instanceKey') continue;
      const setting = (ENTRY_KEYS as Record<string, string>)[key];
      if (!setting) ignoredKeys.push(key);
      // The seed passes every value on as `String(v)`; text settings take the same.
      else if (value !== undefined && value !== null)
        input[setting] =
          TEXT_SETTINGS.has(setting) && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') ? String(value) : value;
    }
    const checked = checkInstanceSettings(input);
    if (!checked.ok) throw new FleetConfigError(`fleet instance '${entry.instanceKey as string}': ${checked.message}`);
    return { settings: checked.settings, ignoredKeys };
  });
}

export async function readFleetConfig(file: string): Promise<FleetInstance[]> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new FleetConfigError(`cannot read fleet config ${file}${typeof code === 'string' ? ` (${code})` : ''}`);
  }
  return parseFleetConfig(text, file, path.dirname(absolute));
}
