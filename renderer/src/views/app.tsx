import { Suspense, useEffect, type ReactNode } from 'react';
import { useHostStore } from '../store';
import { ConnectionBanner } from './connection-banner';
import { DashboardView } from './dashboard/dashboard-view';
import { useDocumentStatus } from './document-status';
import { NavTabs, panelId, tabId } from './nav-tabs';
import { ProfileSwitcher } from './profiles/profile-switcher';
import { SettingsBanner } from './settings-banner';
import { StatusHeader } from './status-header';
import { useRouteFromHash, type RouteId } from './use-route';
import { VIEWS } from './view-loaders';

// Only the dashboard (a paired machine's first view) is in the first script. The rest,
// the pairing view included (an unpaired machine's first view, known only once the host
// says so), load when first opened: from the host's own origin that takes a few
// milliseconds, and the panel stays empty meanwhile (no "Loading…" to flash).
function RouteView({ route }: { route: RouteId }): ReactNode {
  const View = VIEWS[route];
  return View ? <View /> : <DashboardView />;
}

/** Views that fill the window and scroll inside (their lists and output), not as a page. */
const FILL_VIEWS: ReadonlySet<RouteId> = new Set(['turns', 'activity']);

/**
 * Until the operator picks a view, an unpaired machine opens on pairing (it is all it
 * can do), a paired one on the dashboard. The choice is written into the address once
 * the status is known, so the view does not change under the operator when pairing
 * completes: the pairing view says "Approved" and offers the way to the dashboard.
 */
function useCurrentRoute(): RouteId {
  const fromHash = useRouteFromHash();
  const status = useHostStore((s) => s.runner.status?.state ?? null);
  const needsPairing = status === 'unpaired' || status === 'pairing' || status === 'revoked';
  const route = fromHash ?? (needsPairing ? 'pairing' : 'dashboard');
  useEffect(() => {
    if (fromHash === null && status !== null) window.history.replaceState(null, '', `#${route}`);
  }, [fromHash, status, route]);
  return route;
}

export function App() {
  const lastError = useHostStore((s) => s.lastError);
  const stale = useHostStore((s) => s.lostAt !== null);
  const route = useCurrentRoute();
  useDocumentStatus();
  return (
    <div className={stale ? 'app app-stale' : 'app'} data-stale={stale ? 'true' : undefined}>
      <ProfileSwitcher />
      <StatusHeader>
        <ConnectionBanner />
        <SettingsBanner />
        {lastError ? (
          <div className="banner banner-error" role="alert">
            {lastError}
          </div>
        ) : null}
      </StatusHeader>
      <nav className="nav" aria-label="Runner Tray">
        <NavTabs current={route} />
      </nav>
      <main className={FILL_VIEWS.has(route) ? 'content content-fill' : 'content'}>
        <div className="tabpanel" id={panelId(route)} role="tabpanel" aria-labelledby={tabId(route)} tabIndex={-1}>
          <Suspense fallback={null}>
            <RouteView route={route} />
          </Suspense>
        </div>
      </main>
    </div>
  );
}
