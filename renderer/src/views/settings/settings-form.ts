import {
  CODEX_DRIVERS,
  parseSetting,
  TURN_NETWORKS,
  RUNTIMES,
  SECRET_BACKENDS,
  SETTING_KEYS,
  type ParseResult,
  type SettingKey,
  type Settings,
} from '../../../../shared/settings';
import { runtimeLabel } from '../../../../shared/runtimes';

/**
 * The settings form's state and rules, apart from its markup: what the operator typed
 * (strings for text and numbers, booleans for toggles), how each field is checked (with
 * the shared schema's own messages, so the window says exactly what the core would),
 * and which fields differ from what the host has.
 */
export type Draft = Record<SettingKey, string | boolean>;

export type FieldKind = 'text' | 'url' | 'number' | 'select' | 'toggle';

export const FIELD_KIND: Readonly<Record<SettingKey, FieldKind>> = {
  controlPlaneUrl: 'url',
  runnerName: 'text',
  runtime: 'select',
  heartbeatMs: 'number',
  interactiveClaimMs: 'number',
  maxSessions: 'number',
  modelAccountAlias: 'text',
  modelAccountState: 'text',
  secretBackend: 'select',
  expectedTenantId: 'text',
  launchAtLogin: 'toggle',
  notifications: 'toggle',
  runWork: 'toggle',
  quitDrainMs: 'number',
  runtimeEnvAllow: 'text',
  useOwnAgentConfig: 'toggle',
  codexDriver: 'select',
  turnNetwork: 'select',
  turnEgressHosts: 'text',
  usageReservePercent: 'number',
  usageAlertPercents: 'text',
  machineMaxTurns: 'number',
  transcriptMemoryKb: 'number',
  lendSchedule: 'text',
  profileLendSchedule: 'text',
  lendIdleMinutes: 'number',
  lendOnBattery: 'toggle',
  lendMinBatteryPercent: 'number',
  activeMachineMaxTurns: 'number',
  activeCpuCeilingPercent: 'number',
  diskMinFreeGb: 'number',
  lendStopsRunningTurns: 'toggle',
  updateCheck: 'toggle',
  spendDailyTokenCap: 'number',
  spendWeeklyTokenCap: 'number',
  spendDailyCostCapUsd: 'number',
  spendWeeklyCostCapUsd: 'number',
};

export const SELECT_OPTIONS: Partial<Record<SettingKey, ReadonlyArray<{ value: string; label: string }>>> = {
  runtime: RUNTIMES.map((value) => ({ value, label: value === 'auto' ? 'auto (whichever is installed)' : runtimeLabel(value) })),
  codexDriver: CODEX_DRIVERS.map((value) => ({
    value,
    label: value === 'auto' ? 'auto (app-server where installed codex has it)' : value === 'exec' ? 'codex exec (one process per turn)' : 'codex app-server',
  })),
  turnNetwork: TURN_NETWORKS.map((value) => ({
    value,
    label: value === 'allowlist' ? 'allowlist (own network: the model API, the MCP server and the hosts below)' : "shared (the host's whole network)",
  })),
  secretBackend: SECRET_BACKENDS.map((value) => ({ value, label: value === 'keychain' ? 'system keychain' : 'owner-only file' })),
};

export const FIELD_HINTS: Readonly<Record<SettingKey, string>> = {
  controlPlaneUrl: 'Where the next pairing goes; a paired runner keeps the control plane it paired with.',
  runnerName: 'The name the control plane shows for this machine; a paired runner is renamed there with the next heartbeat.',
  runtime: 'Which coding agent runs turns.',
  heartbeatMs: 'How often the runner reports in.',
  interactiveClaimMs: 'How often to ask for work when the control plane offers no long-poll.',
  maxSessions: 'How many turns this machine runs at once.',
  modelAccountAlias: 'The model account the control plane schedules against.',
  modelAccountState: 'Reported with each heartbeat. Leave at "unknown" to report the measured state (available, limited until …); anything else overrides it.',
  secretBackend: 'Where the runner secret is kept. Takes effect at the next start.',
  expectedTenantId: 'Refuse pairings that belong to another tenant. Leave empty to accept any.',
  launchAtLogin: 'Start in the tray when you log in (desktop app).',
  notifications: 'Tell me when pairing is approved, a turn fails, or the runner is revoked (desktop app).',
  runWork: 'Claim and run turns here. Off: the runner only reports in (heartbeat-only) and claims nothing.',
  quitDrainMs: 'Quitting waits this long for running turns to finish, then cancels them (their results are still reported). 0 cancels at once.',
  runtimeEnvAllow: 'Names (or PREFIX_*) a turn may see beyond PATH, HOME, locale, proxies and ANTHROPIC_*/CLAUDE_*/OPENAI_*/CODEX_*, e.g. AWS_PROFILE.',
  useOwnAgentConfig: 'Unattended turns load your own claude/codex settings, hooks, MCP servers and instructions. Off keeps them out of factory turns.',
  codexDriver: 'How codex turns run. The app-server can be interrupted and reports rate limits.',
  turnNetwork:
    "In a sandbox, a turn has a network of its own: through the runner's proxy it reaches only its model API, its MCP server and the hosts below. Shared gives it the host's network: every local service and the session bus.",
  turnEgressHosts: 'More hosts (host or host:port, default port 443) a sandboxed turn may reach through the proxy, e.g. "registry.npmjs.org, pypi.org".',
  usageReservePercent: 'Stop claiming when an account has this much or less left; claiming resumes at the reset.',
  usageAlertPercents: 'Notify when an account falls to these percentages left, e.g. "20, 5".',
  machineMaxTurns: 'How many turns this machine runs at once over every profile; 0 is one per CPU core. Each profile keeps its own maximum too.',
  transcriptMemoryKb: "How much of each running turn's live transcript the runner keeps in memory; the rest is on disk beside the turn history.",
  lendSchedule: 'Days and hours in your time zone, e.g. "mon 09-18, sat 10-12". Empty: any time. Outside them nothing new is claimed.',
  profileLendSchedule:
    'Narrows the machine\'s lending hours for this profile alone, in the same form, e.g. "sat 00-24, sun 00-24". Empty: whenever the machine lends.',
  lendIdleMinutes: 'Claim new work only once you have not touched the keyboard or mouse for this long. 0: also while you use the machine.',
  lendOnBattery: 'Off: nothing new is claimed while the machine runs on battery.',
  lendMinBatteryPercent: 'On battery, claim new work only while the charge is above this.',
  activeMachineMaxTurns: 'A lower ceiling while you use the machine; the one above holds while you are away. 0: the same.',
  activeCpuCeilingPercent: 'While you use the machine, claim new work only while its CPU use is below this. 100: no ceiling.',
  diskMinFreeGb: 'Stop claiming while the data or work folders have less free space than this; claiming resumes above it. 0: off.',
  lendStopsRunningTurns: 'Off: a turn that is running when a term above holds claims back finishes. On: it is canceled too.',
  updateCheck: 'At start and once a day, look for a newer Runner Tray and say so. Nothing is installed or restarted while turns run.',
  spendDailyTokenCap: 'Input + output tokens each model account may use per day (from midnight, local time); then claims for it wait until midnight.',
  spendWeeklyTokenCap: 'The same per week, from Monday 00:00 local time.',
  spendDailyCostCapUsd:
    'Cost per day, where the runtime reports it (claude). Codex reports no cost, so this cannot hold a codex account; its tokens still count.',
  spendWeeklyCostCapUsd: 'The same per week, from Monday 00:00. A turn that is running when a cap is reached finishes.',
};

/** Shown beside a setting while its value is risky. */
export const FIELD_WARNINGS: Partial<Record<SettingKey, (value: string | boolean) => string | null>> = {
  useOwnAgentConfig: (value) =>
    value === true
      ? 'Turns from the control plane will run with your personal MCP servers, hooks and instructions, and (in the sandbox) can read and change your whole claude/codex configuration folder.'
      : null,
  turnNetwork: (value) =>
    value === 'shared' ? "Turns share this machine's network: every loopback service, the session bus and the whole internet are in reach." : null,
};

/** The plain sections; the lending terms have a card of their own (schedule-card.tsx). */
export const SECTIONS: ReadonlyArray<{ title: string; keys: SettingKey[] }> = [
  { title: 'Runner', keys: ['runnerName', 'controlPlaneUrl', 'expectedTenantId'] },
  { title: 'Work', keys: ['runWork', 'runtime', 'codexDriver', 'maxSessions', 'profileLendSchedule', 'heartbeatMs', 'interactiveClaimMs', 'quitDrainMs'] },
  { title: 'What a turn can reach', keys: ['runtimeEnvAllow', 'useOwnAgentConfig', 'turnNetwork', 'turnEgressHosts'] },
  { title: 'Model account', keys: ['modelAccountAlias', 'modelAccountState', 'usageReservePercent', 'usageAlertPercents'] },
  { title: 'This computer', keys: ['machineMaxTurns', 'transcriptMemoryKb', 'secretBackend', 'launchAtLogin', 'notifications', 'updateCheck'] },
  { title: 'Spending', keys: ['spendDailyTokenCap', 'spendWeeklyTokenCap', 'spendDailyCostCapUsd', 'spendWeeklyCostCapUsd'] },
];

export function draftFrom(settings: Settings): Draft {
  const draft = {} as Draft;
  for (const key of SETTING_KEYS) {
    const value = settings[key];
    draft[key] = typeof value === 'boolean' ? value : value === undefined ? '' : String(value);
  }
  return draft;
}

/** What the field means as a setting value: numbers are numbers, an empty number is not one. */
function asInput(key: SettingKey, value: string | boolean): unknown {
  if (FIELD_KIND[key] !== 'number' || typeof value !== 'string') return value;
  return value.trim() === '' ? Number.NaN : Number(value);
}

export function checkField(key: SettingKey, value: string | boolean): ParseResult<unknown> {
  return parseSetting(key, asInput(key, value));
}

/** The fields whose (valid or not) value differs from the host's. */
export function changedKeys(draft: Draft, settings: Settings): SettingKey[] {
  return SETTING_KEYS.filter((key) => {
    const parsed = checkField(key, draft[key]);
    return !parsed.ok || parsed.value !== settings[key];
  });
}

/** The patch for settings:update: a cleared optional field is sent as null (JSON has no undefined). */
export function patchOf(draft: Draft, keys: SettingKey[]): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const key of keys) {
    const parsed = checkField(key, draft[key]);
    if (parsed.ok) patch[key] = parsed.value === undefined ? null : parsed.value;
  }
  return patch;
}
