import { useHostStore } from '../store';
import { useNow } from './use-now';

/** Says, in one line, when the window is not talking to the host and what happens next. */
export function ConnectionBanner() {
  const connection = useHostStore((s) => s.connection);
  if (connection.state === 'open') return null;
  return (
    <div className="banner banner-warn" role="status" aria-live="polite" data-testid="connection-banner">
      <ConnectionText />
    </div>
  );
}

function ConnectionText() {
  const connection = useHostStore((s) => s.connection);
  const now = useNow();
  switch (connection.state) {
    case 'open':
      return null;
    case 'connecting':
      return <>Connecting to the host…</>;
    case 'refused':
      return <>{connection.reason}</>;
    case 'reconnecting': {
      const seconds = Math.max(0, Math.ceil((connection.retryAt - now) / 1000));
      return (
        <>
          {connection.reason} Retrying in {seconds} s.
        </>
      );
    }
  }
}

export function ConnectionPill() {
  const state = useHostStore((s) => s.connection.state);
  const label = state === 'open' ? 'Connected' : state === 'refused' ? 'Refused' : state === 'connecting' ? 'Connecting' : 'Reconnecting';
  return (
    <span className={`pill pill-conn-${state}`} data-testid="connection-state" role="status" aria-label={`Connection to the host: ${label}`}>
      <span className="dot" aria-hidden="true" />
      {label}
    </span>
  );
}
