import { statusLine, trayIconFor } from '../../../shared/status';
import { useHostStore } from '../store';
import { ConnectionPill } from './connection-banner';
import { useNow } from './use-now';

/** The status in words at the top: the one thing most operators look at. */
export function StatusHeader() {
  const runner = useHostStore((s) => s.runner);
  return (
    <header className="status-header">
      <div className="status-main">
        <span className={`state-dot state-${runner ? trayIconFor(runner) : 'unknown'}`} aria-hidden="true" />
        <div>
          <h1 className="status-line" data-testid="status-line">
            {runner ? <StatusText /> : 'Waiting for the host…'}
          </h1>
          <p className="status-reason" data-testid="status-reason">
            {runner?.reason ?? '\u00a0'}
          </p>
        </div>
      </div>
      <ConnectionPill />
    </header>
  );
}

function StatusText() {
  const runner = useHostStore((s) => s.runner);
  // Only the offline countdown ticks; other states re-render on events alone.
  const now = useNow(runner?.state === 'offline' ? 1000 : 60_000);
  return <>{runner ? statusLine(runner, now) : null}</>;
}
