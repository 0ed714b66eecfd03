import { useSyncExternalStore } from 'react';

/**
 * The views of the window. The address hash names the open one (`#turns`), so a reload
 * keeps it, tests can open a view directly, and the desktop shell can later open the
 * window on a given view (the tray's "2 turns running" item) by loading that hash.
 * Adding a view is one entry here and one in app.tsx.
 */
export const ROUTES = [
  { id: 'dashboard', label: 'Dashboard' },
  { id: 'turns', label: 'Turns' },
  { id: 'pairing', label: 'Pairing' },
  { id: 'activity', label: 'Activity' },
  { id: 'requests', label: 'Requests' },
  { id: 'work', label: 'Work' },
  { id: 'settings', label: 'Settings' },
] as const;
export type RouteId = (typeof ROUTES)[number]['id'];

function fromHash(hash: string): RouteId | null {
  const id = hash.replace(/^#\/?/, '').split('/')[0];
  return ROUTES.some((r) => r.id === id) ? (id as RouteId) : null;
}

/** What the address names inside a view: `#requests/<id>` → `<id>`; null when nothing. */
export function routeParam(hash: string): string | null {
  const [, param] = hash.replace(/^#\/?/, '').split('/');
  if (!param) return null;
  try {
    return decodeURIComponent(param);
  } catch {
    return null;
  }
}

/** The address's parameter inside the open view, kept current as the address changes. */
export function useRouteParam(): string | null {
  return useSyncExternalStore(subscribe, () => routeParam(window.location.hash));
}

function subscribe(listener: () => void): () => void {
  window.addEventListener('hashchange', listener);
  return () => window.removeEventListener('hashchange', listener);
}

/** The view the address names, or null when it names none (the app then picks one). */
export function useRouteFromHash(): RouteId | null {
  return useSyncExternalStore(subscribe, () => fromHash(window.location.hash));
}

export function navigate(route: RouteId): void {
  if (fromHash(window.location.hash) !== route) window.location.hash = route;
}
