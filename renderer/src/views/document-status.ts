import { useEffect } from 'react';
import { statusLine, trayIconFor, type RunnerStatus, type TrayIconKind } from '../../../shared/status';
import { useHostStore } from '../store';
import { formatClock } from './format';

/** The favicon's colour per look of the tray icon; `lost` is a hollow ring (no live data). */
type IconKind = TrayIconKind | 'lost';
const ICON_COLOURS: Record<IconKind, string> = {
  idle: '#2e9d5b',
  working: '#2f6fdf',
  paused: '#c98a00',
  error: '#d2413a',
  unpaired: '#8a8f98',
  lost: '#8a8f98',
};

export function faviconHref(kind: IconKind): string {
  const colour = ICON_COLOURS[kind];
  const shape =
    kind === 'lost'
      ? `<circle cx="8" cy="8" r="5.5" fill="none" stroke="${colour}" stroke-width="2.5"/>`
      : kind === 'paused'
        ? `<circle cx="8" cy="8" r="7" fill="${colour}"/><rect x="5" y="4.5" width="2" height="7" fill="#fff"/><rect x="9" y="4.5" width="2" height="7" fill="#fff"/>`
        : `<circle cx="8" cy="8" r="7" fill="${colour}"/>`;
  return `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">${shape}</svg>`)}`;
}

/** The tab's words: the status without a ticking countdown (a title is read at a glance). */
export function titleText(status: RunnerStatus | null, connection: 'open' | 'refused' | 'lost' | 'connecting'): string {
  if (connection === 'refused') return 'Host restarted';
  if (connection === 'lost') return 'Disconnected';
  if (!status) return 'Connecting';
  if (status.state === 'offline') return 'Offline';
  // A tab title stays short: who paused and until when are on the page.
  if (status.state === 'paused') return 'Paused';
  return statusLine(status, Date.now(), formatClock);
}

/**
 * Keeps the tab title and favicon on the runner's status, so a background tab says
 * "Paused" or "Working 2 of 4" without being opened.
 */
export function useDocumentStatus(): void {
  const status = useHostStore((s) => s.runner.status);
  const state = useHostStore((s) => s.connection.state);
  const lost = useHostStore((s) => s.lostAt !== null);
  const connection = state === 'refused' ? 'refused' : lost ? 'lost' : state === 'open' ? 'open' : 'connecting';
  useEffect(() => {
    document.title = `${titleText(status, connection)} · Runner Tray`;
    const kind: IconKind = connection === 'open' && status ? trayIconFor(status) : 'lost';
    let link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    if (!link) {
      link = document.createElement('link');
      link.rel = 'icon';
      link.type = 'image/svg+xml';
      document.head.appendChild(link);
    }
    if (link.dataset.state !== kind) {
      link.href = faviconHref(kind);
      link.dataset.state = kind;
    }
  }, [status, connection]);
}
