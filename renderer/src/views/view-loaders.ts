import { lazy, type ComponentType } from 'react';
import type { RouteId } from './use-route';

type Loader = () => Promise<{ default: ComponentType }>;

/**
 * The views that are not in the first script, each loaded when first opened (app.tsx), or
 * as the page starts when the address names it (start.ts). A module is fetched once,
 * whoever asks first.
 */
const VIEW_LOADERS: Partial<Record<RouteId, Loader>> = {
  turns: async () => ({ default: (await import('./turns/turns-view')).TurnsView }),
  pairing: async () => ({ default: (await import('./pairing/pairing-view')).PairingView }),
  activity: async () => ({ default: (await import('./activity/activity-view')).ActivityView }),
  requests: async () => ({ default: (await import('./requests')).RequestsView }),
  work: async () => ({ default: (await import('./work')).WorkView }),
  settings: async () => ({ default: (await import('./settings/settings-view')).SettingsView }),
};

/**
 * The component app.tsx shows for each of these views: a lazy one, or the view itself
 * when `preloadView` loaded it before the first render.
 */
export const VIEWS: Partial<Record<RouteId, ComponentType>> = Object.fromEntries(Object.entries(VIEW_LOADERS).map(([id, load]) => [id, lazy(load)]));

/**
 * Loads the view an address hash names (`#turns`, `#requests/<id>`), if it is one of
 * these; main.tsx waits for it before the first render. A lazy view suspends on its first
 * render however fast its module comes, and React then holds the view back until 300 ms
 * after the (empty) fallback was shown: the window's first view would wait for that.
 */
export async function preloadView(hash: string): Promise<void> {
  const id = hash.replace(/^#\/?/, '').split('/')[0] ?? '';
  if (!Object.hasOwn(VIEW_LOADERS, id)) return;
  try {
    VIEWS[id as RouteId] = (await VIEW_LOADERS[id as RouteId]!()).default;
  } catch {
    // Shown by the view's own lazy load, which asks again.
  }
}
