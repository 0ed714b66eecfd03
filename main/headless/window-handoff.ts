import { WINDOW_HANDOFF_SCRIPT, WINDOW_KEY_STORAGE } from '../../shared/window-session';

/**
 * An address's first answer: a page that hands its window key to this origin's
 * localStorage (this origin's, port included: every tab of this browser on this host
 * shares it, no page of another port can read it) and then replaces itself with the same address without the token (the
 * fragment, the view the address named, is kept). The key is in this one answer only
 * (no-store): the cookie alone never fetches it again. The script is a file of its own,
 * so the page's policy (`script-src 'self'`) needs no inline exception.
 */
export function handoffPage(windowKey: string): string {
  return (
    '<!doctype html><html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">' +
    `<meta name="runner-tray-window-key" content="${windowKey}"><title>Runner Tray</title>` +
    `<script src="${WINDOW_HANDOFF_SCRIPT}"></script></head><body>Opening Runner Tray…</body></html>`
  );
}

export const HANDOFF_SCRIPT = `(() => {
  const meta = document.querySelector('meta[name="runner-tray-window-key"]');
  if (meta) localStorage.setItem(${JSON.stringify(WINDOW_KEY_STORAGE)}, meta.getAttribute('content') || '');
  const next = new URL(location.href);
  next.searchParams.delete('token');
  location.replace(next.pathname + next.search + next.hash);
})();
`;
