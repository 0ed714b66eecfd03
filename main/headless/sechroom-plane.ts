import { parseArgs } from 'node:util';
import { slugOf } from '../../shared/profiles';
import { FleetConfigError, readFleetConfig } from '../core/planes/sechroom/fleet-config';
import { checkSechroomConfig, type SechroomProfileConfig } from '../core/planes/sechroom/sechroom-config';
import { ExecutorStateError, NO_EXECUTOR_STATE, readExecutorState, settingsOfState, stateRuntimeNotCodex } from '../core/planes/sechroom/executor-state';
import { RUNTIME_CODEX_ONLY } from '../../shared/sechroom-instance-settings';

/*
 * `--plane sechroom` (default `rost`): the single-profile flags describe a Sechroom profile
 * — `--control-plane` is the Work Layer base URL, the rest are `sechroom executor run`'s own
 * flag names — or `--fleet-config <file>` imports the seed's fleet config, one profile per
 * instance. Every value goes through the profile's settings schema (the seed's messages).
 * The flags this module does not know are left for the host's own (resolveOverrides).
 *
 * As `executor run` [seed B1.1], the single profile starts from the checkout's
 * `.sechroom/executor.json` (read from the working folder, its root defaulting to it) and the
 * flags override it; without one, `--instance-key` (and `--root`) must say it all.
 * `--runtime` is the instance's (codex only) on this plane, the host's on Rost's.
 * `--allow-dirty-root` is accepted and is what this host always does: a task works in a
 * worktree of its own, so the root's uncommitted changes never reach its delivery commit.
 */

export const SECHROOM_USAGE =
  '       runner-tray-headless --plane sechroom --control-plane <work layer url> --tenant <id> [--account <name>] --instance-key <key> --root <dir> ' +
  '[--lane <id>] [--connector <id>] [--capability <key>]... [--ttl <s>] [--poll-interval <s>] [--heartbeat-interval <s>] [--turn-timeout <s>] ' +
  '[--resume-turn-timeout <s>] [--drain-timeout <s>] [--usage-reserve <percent>] [--model <id>] [--sandbox <mode>] [--runtime codex] [--no-deliver] [--no-pr] [--allow-dirty-root] [--once]\n' +
  '       (in a checkout with .sechroom/executor.json, as `sechroom executor run`: its instance key, lane, connector, TTL, capabilities; --root defaults to the working folder)\n' +
  '       runner-tray-headless --plane sechroom --control-plane <work layer url> --tenant <id> --fleet-config <file>\n' +
  '       runner-tray-headless [Rost flags] --fleet-config <file> (beside the Rost profile; SECHROOM_BASE_URL names the Work Layer)\n' +
  '       (SECHROOM_TOKEN: a pre-minted bearer; SECHROOM_REFRESH_TOKEN: its refresh token, to refresh it on a 401; CODEX_BIN: the codex to run; SECHROOM_TENANT for --tenant)';

/** Seed flag → instance setting. */
const INSTANCE_FLAGS: Readonly<Record<string, string>> = {
  '--instance-key': 'instanceKey',
  '--lane': 'laneId',
  '--connector': 'connectorId',
  '--relay': 'relayId',
  '--root': 'root',
  '--ttl': 'ttlSeconds',
  '--refresh-after': 'refreshAfterSeconds',
  '--poll-interval': 'pollIntervalSeconds',
  '--heartbeat-interval': 'heartbeatIntervalSeconds',
  '--turn-timeout': 'turnTimeoutSeconds',
  '--resume-turn-timeout': 'resumeTurnTimeoutSeconds',
  '--drain-timeout': 'drainTimeoutSeconds',
  '--usage-reserve': 'usageReservePercent',
  '--model': 'model',
  '--sandbox': 'sandbox',
  '--codex-bin': 'codexBin',
};
const WORK_LAYER_FLAGS = new Set(['--control-plane', '--tenant', '--account', '--fleet-config', '--capability', '--max-push-mib']);
const SWITCHES = new Set(['--no-deliver', '--no-pr', '--allow-dirty-root']);

const PARSE_OPTIONS = Object.fromEntries([
  ...['--plane', '--runtime', ...WORK_LAYER_FLAGS, ...Object.keys(INSTANCE_FLAGS)].map((flag) => [flag.slice(2), { type: 'string' as const }]),
  ...[...SWITCHES].map((flag) => [flag.slice(2), { type: 'boolean' as const }]),
]);

type PlaneToken = ReturnType<typeof parseArgs>['tokens'] extends (infer T)[] | undefined ? T : never;

/**
 * argv's tokens from node's parseArgs (non-strict: the host's flags are not ours to refuse).
 * A `--` ends parseArgs' options but not this module's: it goes to the host (which refuses it)
 * and the words after it are read on.
 */
function* planeTokens(argv: readonly string[]): Generator<PlaneToken> {
  let offset = 0;
  for (;;) {
    const { tokens } = parseArgs({ args: argv.slice(offset), options: PARSE_OPTIONS, strict: false, allowPositionals: true, tokens: true });
    const end = tokens.findIndex((token) => token.kind === 'option-terminator');
    for (const token of end < 0 ? tokens : tokens.slice(0, end + 1)) yield { ...token, index: token.index + offset };
    if (end < 0) return;
    offset += (tokens[end] as PlaneToken).index + 1;
  }
}

/** `--plane` and the Sechroom flags' values out of argv; every other argument is kept, in order, for the host. */
function readPlaneFlags(argv: readonly string[]) {
  const rest: string[] = [];
  let plane: string | undefined;
  const values = new Map<string, string>();
  const capabilities: string[] = [];
  const switches = new Set<string>();
  let kept = -1;
  for (const token of planeTokens(argv)) {
    const name = token.kind === 'option' ? token.rawName : '';
    if (token.kind !== 'option' || !name.startsWith('--') || !Object.hasOwn(PARSE_OPTIONS, token.name)) {
      // One argument can give several tokens (`-abc`): keep it once.
      if (token.index !== kept) rest.push(argv[token.index] as string);
      kept = token.index;
    } else if (SWITCHES.has(name)) {
      if (token.inlineValue === true) return { ok: false as const, message: `${name} takes no value.` };
      switches.add(name);
    } else {
      const value = token.value;
      if (value === undefined || (token.inlineValue !== true && value.startsWith('--'))) return { ok: false as const, message: `${name} needs a value.` };
      if (name === '--plane') plane = value;
      else if (name === '--capability') capabilities.push(value);
      else values.set(name, value);
    }
  }
  return { ok: true as const, rest, plane, values, capabilities, switches };
}

export type SechroomPlane =
  | { ok: true; plane: 'rost'; rest: string[]; profiles: { id: string; config: SechroomProfileConfig }[] }
  | { ok: true; plane: 'sechroom'; rest: string[]; profiles: { id: string; config: SechroomProfileConfig }[] }
  | { ok: false; message: string };

/** `--plane` and the Sechroom flags out of argv; the rest is the host's. A fleet config is read here. */
export async function resolveSechroomPlane(
  env: Readonly<Record<string, string | undefined>>,
  argv: readonly string[],
  /** Where `.sechroom/executor.json` is looked for (the seed: its working folder). */
  cwd: string = process.cwd(),
): Promise<SechroomPlane> {
  const read = readPlaneFlags(argv);
  if (!read.ok) return read;
  const { plane, values, capabilities, switches } = read;
  let { rest } = read;
  const chosen = plane ?? 'rost';
  if (chosen !== 'rost' && chosen !== 'sechroom') return { ok: false, message: '--plane must be rost or sechroom.' };
  if (chosen === 'rost') {
    // Rost's --runtime (auto, claude or codex) is the host's.
    const runtime = values.get('--runtime');
    values.delete('--runtime');
    if (runtime !== undefined) rest = [...rest, '--runtime', runtime];
    const allowed = new Set(['--control-plane', '--fleet-config', '--tenant', '--account', '--no-deliver', '--no-pr']);
    const stray = [...values.keys(), ...switches, ...(capabilities.length ? ['--capability'] : [])].find((flag) => !allowed.has(flag));
    if (stray) return { ok: false, message: `${stray} is a Sechroom flag: add --plane sechroom.` };
    // The Rost plane's own --control-plane goes back to the host's flags.
    const url = values.get('--control-plane');
    const own = url === undefined ? rest : [...rest, '--control-plane', url];
    if (!values.has('--fleet-config')) {
      const sechroomOnly = [...values.keys(), ...switches].find((flag) => flag !== '--control-plane');
      if (sechroomOnly) return { ok: false, message: `${sechroomOnly} is a Sechroom flag: add --plane sechroom.` };
      return { ok: true, plane: 'rost', rest: own, profiles: [] };
    }
    // A fleet beside a Rost profile: SECHROOM_BASE_URL names the Work Layer (--control-plane is Rost's).
    values.delete('--control-plane');
    const fleet = await sechroomProfiles(env, values, switches);
    return fleet.ok ? { ok: true, plane: 'rost', rest: own, profiles: fleet.profiles } : fleet;
  }
  const profiles = await sechroomProfiles(env, values, switches, capabilities, cwd);
  return profiles.ok ? { ok: true, plane: 'sechroom', rest, profiles: profiles.profiles } : profiles;
}

async function sechroomProfiles(
  env: Readonly<Record<string, string | undefined>>,
  values: Map<string, string>,
  switches: Set<string>,
  capabilities: string[] = [],
  cwd: string | null = null,
): Promise<{ ok: true; profiles: { id: string; config: SechroomProfileConfig }[] } | { ok: false; message: string }> {
  const workLayer = {
    baseUrl: values.get('--control-plane') ?? env.SECHROOM_BASE_URL,
    tenant: values.get('--tenant') ?? env.SECHROOM_TENANT,
    ...(values.has('--account') ? { account: values.get('--account') } : {}),
    deliver: !switches.has('--no-deliver'),
    raisePr: !switches.has('--no-pr'),
    ...(values.has('--max-push-mib') ? { maxPushMiB: Number(values.get('--max-push-mib')) } : {}),
  };
  if (workLayer.baseUrl === undefined)
    return { ok: false, message: '--control-plane (the Work Layer base URL; SECHROOM_BASE_URL beside a Rost profile) is required.' };
  const fleet = values.get('--fleet-config');
  if (fleet !== undefined) {
    const own = [...values.keys()].find((flag) => INSTANCE_FLAGS[flag] !== undefined || flag === '--runtime');
    if (own) return { ok: false, message: `${own} cannot be used with --fleet-config (each instance's settings are in the file).` };
    try {
      const instances = await readFleetConfig(fleet);
      const profiles: { id: string; config: SechroomProfileConfig }[] = [];
      for (const { settings } of instances) {
        const checked = checkSechroomConfig({ ...workLayer, instance: settings });
        if (!checked.ok) return { ok: false, message: checked.message };
        const id = slugOf(settings.instanceKey);
        if (!id || profiles.some((p) => p.id === id))
          return { ok: false, message: `fleet instance '${settings.instanceKey}' does not make a profile id of its own` };
        profiles.push({ id, config: checked.config });
      }
      return { ok: true, profiles };
    } catch (error) {
      if (error instanceof FleetConfigError) return { ok: false, message: error.message };
      throw error;
    }
  }
  const installed = cwd === null ? { ok: true as const, instance: {} } : await installedInstance(values, cwd);
  if (!installed.ok) return installed;
  const instance: Record<string, unknown> = { ...installed.instance };
  for (const [flag, setting] of Object.entries(INSTANCE_FLAGS)) if (values.has(flag)) instance[setting] = values.get(flag);
  if (capabilities.length) instance.capabilityKeys = capabilities;
  if (env.CODEX_BIN && instance.codexBin === undefined) instance.codexBin = env.CODEX_BIN;
  const checked = checkSechroomConfig({ ...workLayer, instance });
  if (!checked.ok) return { ok: false, message: checked.message };
  const id = slugOf(checked.config.instance.instanceKey);
  if (!id) return { ok: false, message: '--instance-key must have a letter or digit in it (it names the profile).' };
  return { ok: true, profiles: [{ id, config: checked.config }] };
}

/**
 * `executor run`'s start [seed 1718–1735], in its order: `--runtime` codex only, the
 * checkout's advertisement (required unless `--instance-key` names the instance), its runtime
 * codex. Its settings, and the working folder as the root, are what the flags then override.
 */
async function installedInstance(
  values: Map<string, string>,
  cwd: string,
): Promise<{ ok: true; instance: Record<string, unknown> } | { ok: false; message: string }> {
  const runtime = values.get('--runtime');
  if (runtime !== undefined && runtime.trim().toLowerCase() !== 'codex') return { ok: false, message: RUNTIME_CODEX_ONLY };
  let located;
  try {
    located = await readExecutorState(cwd);
  } catch (error) {
    if (error instanceof ExecutorStateError) return { ok: false, message: error.message };
    throw error;
  }
  if (!located) return values.has('--instance-key') ? { ok: true, instance: {} } : { ok: false, message: NO_EXECUTOR_STATE };
  if (located.state.runtime !== 'codex') return { ok: false, message: stateRuntimeNotCodex(located.state.runtime) };
  return { ok: true, instance: { ...settingsOfState(located.state), root: cwd } };
}

/** What the core is started with for the plane: the Sechroom profiles and which one the flags are about. */
export function sechroomCoreOptions(plane: Extract<SechroomPlane, { ok: true }>, profile: string | undefined) {
  if (plane.plane === 'rost') return plane.profiles.length ? { sechroomProfiles: Object.fromEntries(plane.profiles.map((p) => [p.id, p.config])) } : {};
  const main = profile ?? plane.profiles[0]!.id;
  const configs = plane.profiles.length === 1 ? [{ id: main, config: plane.profiles[0]!.config }] : plane.profiles;
  return {
    profile: main,
    profileConnector: 'sechroom' as const,
    sechroomProfiles: Object.fromEntries(configs.map((p) => [p.id, p.config])),
  };
}

/**
 * `--once` on the Sechroom plane, as `sechroom executor run --once`: one claimed task to its
 * end, and the seed's exit code [seed 1905–1917]: 1 when the sign-in was refused (`[run] auth
 * expired: …`), else 0 — an abandoned task, or a completion still queued, is said on its line.
 */
export async function runSechroomOnce(
  core: { work: { runOne(): Promise<{ claimed: boolean; error: string | null }> } },
  lines: { printOnce(line: string): void },
) {
  const ran = await core.work.runOne();
  if (ran.error) lines.printOnce(ran.error);
  return ran.error?.startsWith('auth expired: ') ? 1 : 0;
}
