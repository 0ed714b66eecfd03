import { useHostStore } from '../store';
import { formatTime } from './format';
import { useNow } from './use-now';

/** Says, in one line, when the window is not talking to the host and what happens next. */
export function ConnectionBanner() {
  const connection = useHostStore((s) => s.connection);
  if (connection.state === 'open') return null;
  const forGood = connection.state === 'refused';
  return (
    <div
      className={forGood ? 'banner banner-error' : 'banner banner-warn'}
      role={forGood ? 'alert' : 'status'}
      aria-live={forGood ? 'assertive' : 'polite'}
      data-testid="connection-banner"
    >
      <ConnectionText />
      <StaleNote />
    </div>
  );
}

function ConnectionText() {
  const connection = useHostStore((s) => s.connection);
  // The countdown to the next try is live even while the rest of the window stands still.
  const now = useNow(1000, true);
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

/** What the greyed-out data below is: a picture from the moment the host was lost. */
function StaleNote() {
  const lostAt = useHostStore((s) => s.lostAt);
  if (lostAt === null) return null;
  return <span className="banner-note"> What this window shows is from {formatTime(new Date(lostAt).toISOString())} and may no longer be true.</span>;
}

const PILL_LABEL = { open: 'Connected', refused: 'Disconnected', connecting: 'Connecting', reconnecting: 'Reconnecting' } as const;

/** The link this chip is about: this window and the host process (not the control plane). */
export function ConnectionPill() {
  const state = useHostStore((s) => s.connection.state);
  const label = PILL_LABEL[state];
  return (
    <span
      className={`pill pill-conn-${state}`}
      role="status"
      aria-label={`This window and the host: ${label}`}
      title="The link between this window and the Runner Tray host (not the control plane)"
    >
      <span className="dot" aria-hidden="true" />
      <span className="pill-what" aria-hidden="true">
        Window ↔ host
      </span>
      <span data-testid="connection-state">{label}</span>
    </span>
  );
}
