import { egressHostEntries, SETTING_LABELS } from './setting-labels';
import type { Settings } from './settings';

/**
 * The settings that widen what a turn can reach (the operator's own agent config, more of
 * the host's environment). While one is on, the dashboard and the tray say so.
 */
export const WIDENING_SETTINGS = ['useOwnAgentConfig', 'runtimeEnvAllow', 'turnNetwork', 'turnEgressHosts'] as const;
export type WideningSetting = (typeof WIDENING_SETTINGS)[number];

/** Splits the `runtimeEnvAllow` setting (`A, B_*`) into patterns. */
export function allowListNames(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** The widening settings that are on. */
export function activeWidening(settings: Pick<Settings, WideningSetting>): WideningSetting[] {
  return WIDENING_SETTINGS.filter((key) => {
    switch (key) {
      case 'useOwnAgentConfig':
        return settings.useOwnAgentConfig;
      case 'runtimeEnvAllow':
        return allowListNames(settings.runtimeEnvAllow).length > 0;
      case 'turnNetwork':
        return settings.turnNetwork === 'shared';
      case 'turnEgressHosts':
        return egressHostEntries(settings.turnEgressHosts).length > 0;
    }
  });
}

/** One line for the tray and the dashboard; null when nothing is widened. */
export function wideningWarning(settings: Pick<Settings, WideningSetting>): string | null {
  const on = activeWidening(settings);
  if (on.length === 0) return null;
  return `Turns reach more: ${on.map((key) => SETTING_LABELS[key]).join(', ')}`;
}
