import { useHostStore } from '../store';
import { ActivityView } from './activity-view';
import { ConnectionBanner } from './connection-banner';
import { HostPanel } from './host-panel';
import { StatusHeader } from './status-header';

export function App() {
  const lastError = useHostStore((s) => s.lastError);
  return (
    <div className="app">
      <StatusHeader />
      <ConnectionBanner />
      {lastError ? (
        <div className="banner banner-error" role="alert">
          {lastError}
        </div>
      ) : null}
      <main className="content">
        <HostPanel />
        <ActivityView />
      </main>
    </div>
  );
}
