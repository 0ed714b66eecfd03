import type { ComponentType } from 'react';
import type { RouteId } from './use-route';

type Loader = () => Promise<{ default: ComponentType }>;

/**
 * The views that are not in the first script, each loaded when first opened (app.tsx), or
 * as the page starts when the address names it (start.ts). A module is fetched once,
 * whoever asks first.
 */
export const VIEW_LOADERS: Partial<Record<RouteId, Loader>> = {
  turns: async () => ({ default: (await import('./turns/turns-view')).TurnsView }),
  pairing: async () => ({ default: (await import('./pairing/pairing-view')).PairingView }),
  activity: async () => ({ default: (await import('./activity/activity-view')).ActivityView }),
  requests: async () => ({ default: (await import('./requests')).RequestsView }),
  work: async () => ({ default: (await import('./work')).WorkView }),
  settings: async () => ({ default: (await import('./settings/settings-view')).SettingsView }),
};

/** Starts loading the view an address hash names (`#turns`, `#requests/<id>`), if it is one of these. */
export function preloadView(hash: string): void {
  const id = hash.replace(/^#\/?/, '').split('/')[0] ?? '';
  // A failed load is shown by the view's own lazy load, which asks again.
  if (Object.hasOwn(VIEW_LOADERS, id)) VIEW_LOADERS[id as RouteId]!().catch(() => undefined);
}
