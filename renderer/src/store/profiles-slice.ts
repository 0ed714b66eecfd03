import type { CommandInput, CommandName } from '../../../shared/contract';
import { DEFAULT_PROFILE_ID, type ProfileSummary } from '../../../shared/profiles';

/**
 * The commands that act on one profile. The window shows one profile at a time (the
 * switcher's choice), and every one of these goes to that profile; the views that start
 * them need not know profiles exist.
 */
const PROFILE_SCOPED: ReadonlySet<CommandName> = new Set<CommandName>([
  'runner:status',
  'runner:snapshot',
  'pairing:start',
  'pairing:cancel',
  'pairing:start-with-code',
  'pairing:retry-now',
  'runner:import',
  'runner:unpair',
  'runner:pause',
  'runner:resume',
  'settings:get',
  'settings:update',
]);

/** A per-profile command's input with the chosen profile added (an explicit `profile` wins). */
export function scopedInput<K extends CommandName>(name: K, input: CommandInput<K> | undefined, profile: string): CommandInput<K> | undefined {
  if (!PROFILE_SCOPED.has(name)) return input;
  if (input !== null && typeof input === 'object' && 'profile' in input) return input;
  return { ...input, profile } as CommandInput<K>;
}

const STORAGE_KEY = 'runner-tray.profile';

/** The profile this window showed last (per origin), or `default`. */
export function rememberedProfile(): string {
  try {
    return globalThis.localStorage?.getItem(STORAGE_KEY) ?? DEFAULT_PROFILE_ID;
  } catch {
    return DEFAULT_PROFILE_ID;
  }
}

export function rememberProfile(id: string): void {
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, id);
  } catch {
    // storage off (a private window): the choice lasts until the window closes
  }
}

/** The chosen profile when it still exists, else the first listed (the host lists `default` first). */
export function effectiveProfile(chosen: string, profiles: readonly ProfileSummary[]): string {
  if (profiles.length === 0 || profiles.some((p) => p.id === chosen)) return chosen;
  return profiles[0]!.id;
}
