import type { SettingKey } from './settings';

/**
 * The settings' labels and the pure helpers the window's first script needs (the
 * dashboard's widening badge), apart from shared/settings.ts: that module builds zod
 * schemas at import, and importing it from the first script put all of zod into it
 * (+27 kB gzipped; `npm run bench`, "Initial JS of the window").
 */
export const SETTING_LABELS: Readonly<Record<SettingKey, string>> = {
  controlPlaneUrl: 'Control plane URL',
  runnerName: 'Runner name',
  runtime: 'Runtime',
  heartbeatMs: 'Heartbeat interval (ms)',
  interactiveClaimMs: 'Interactive claim interval (ms)',
  maxSessions: 'Maximum sessions',
  modelAccountAlias: 'Model account alias',
  modelAccountState: 'Model account state',
  secretBackend: 'Secret storage',
  expectedTenantId: 'Expected tenant id',
  launchAtLogin: 'Launch at login',
  notifications: 'Notifications',
  runWork: 'Run work on this machine',
  quitDrainMs: 'Quitting waits for running turns (ms)',
  runtimeEnvAllow: 'Extra environment variables for runtimes',
  useOwnAgentConfig: 'Use my own claude/codex settings',
  codexDriver: 'Codex driver',
  turnNetwork: 'Turn network',
  turnEgressHosts: 'Extra hosts turns may reach',
  usageReservePercent: 'Usage reserve (%)',
  usageAlertPercents: 'Usage alerts (% left)',
  machineMaxTurns: 'Turns at once on this machine',
  transcriptMemoryKb: 'Live transcript kept in memory per turn (kB)',
  lendSchedule: 'Take work during these hours',
  profileLendSchedule: 'This profile only during these hours',
  lendIdleMinutes: 'Only after I have been idle for (minutes)',
  lendOnBattery: 'Take work on battery',
  lendMinBatteryPercent: 'On battery, only above (% charge)',
  activeMachineMaxTurns: 'Turns at once while I use this machine',
  activeCpuCeilingPercent: 'While I use this machine, CPU ceiling (%)',
  diskMinFreeGb: 'Stop below this much free disk (GB)',
  lendStopsRunningTurns: 'Stop running turns too',
  updateCheck: 'Check for updates',
  spendDailyTokenCap: 'Tokens per day per account (0: no cap)',
  spendWeeklyTokenCap: 'Tokens per week per account (0: no cap)',
  spendDailyCostCapUsd: 'Cost per day per account (USD, 0: no cap)',
  spendWeeklyCostCapUsd: 'Cost per week per account (USD, 0: no cap)',
};

/** The entries of the `turnEgressHosts` setting, lower-cased. */
export function egressHostEntries(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s.length > 0);
}
