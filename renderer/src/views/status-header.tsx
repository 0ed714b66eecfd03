import type { ReactNode } from 'react';
import { statusLine, trayIconFor } from '../../../shared/status';
import { useHostStore } from '../store';
import { ConnectionPill } from './connection-banner';
import { formatClock } from './format';
import { PauseControl } from './pause-control';
import { useNow } from './use-now';

/** The status in words at the top: the one thing most operators look at. Banners go below it. */
export function StatusHeader({ children }: { children?: ReactNode }) {
  const runner = useHostStore((s) => s.runner.status);
  return (
    <header className="app-header">
      <div className="status-header">
        <div className="status-main">
          <span className={`state-dot state-${runner ? trayIconFor(runner) : 'unknown'}`} aria-hidden="true" />
          <div className="status-text">
            <h1 className="status-line" data-testid="status-line">
              {runner ? <StatusText /> : 'Waiting for the host…'}
            </h1>
            <ReasonLine />
          </div>
        </div>
        <div className="status-actions">
          <PauseControl />
          <ConnectionPill />
        </div>
      </div>
      {children}
    </header>
  );
}

/**
 * Why the runner is as it is. An idle runner held back (a lending term, no runtime ready)
 * says what it waits for, amber with an icon: "Waiting: you are using this machine — …".
 */
function ReasonLine() {
  const runner = useHostStore((s) => s.runner.status);
  if (runner?.state === 'idle' && runner.held) {
    return (
      <p className="status-reason status-held" data-testid="status-reason">
        <svg className="held-icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
          <circle cx="8" cy="8" r="6.5" fill="none" stroke="currentColor" strokeWidth="1.6" />
          <path d="M8 4.5V8l2.5 1.6" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
        </svg>
        <span data-testid="status-held">Waiting: {runner.held}</span>
      </p>
    );
  }
  return (
    <p className="status-reason" data-testid="status-reason">
      {runner?.reason ?? '\u00a0'}
    </p>
  );
}

function StatusText() {
  const runner = useHostStore((s) => s.runner.status);
  // Only the offline and quit countdowns tick; other states re-render on events alone (a
  // minute's clock read for a drain's deadline was up to a minute old: "up to 6 min" of 5).
  const counting = runner?.state === 'offline' || (runner?.state === 'draining' && runner.deadline !== undefined);
  const now = useNow(counting ? 1000 : 60_000);
  return <>{runner ? statusLine(runner, now, formatClock) : null}</>;
}
