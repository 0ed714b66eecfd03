import { formatUserCode, normalizeUserCode } from '../../../../shared/protocol/user-code';
import type { PairingState } from '../../../../shared/runner';
import { getBridge } from '../../bridge/instance';
import { CopyButton } from '../common/copy-button';
import { useNow } from '../use-now';
import { RetryNowButton } from './pairing-retrying';

type Waiting = Extract<PairingState, { phase: 'waiting' }>;

/** Only http(s) addresses become links: the address comes from the control plane. */
export function safeHttpUrl(value: string | null): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** The code as the operator types it: XXXX-XXXX when it is a standard code, else as sent. */
export function displayCode(userCode: string): string {
  const canonical = normalizeUserCode(userCode);
  return canonical ? formatUserCode(canonical) : userCode;
}

/** The code, big and grouped, where to enter it, how long it lives, and any network trouble. */
export function PairingCode({ pairing }: { pairing: Waiting }) {
  const code = displayCode(pairing.userCode);
  const [first, second] = code.includes('-') ? code.split('-', 2) : [code, null];
  const address = safeHttpUrl(pairing.verificationUri);
  const openUrl = safeHttpUrl(pairing.verificationUriComplete) ?? address;
  return (
    <div className="pairing-code-block">
      <p className="lead">Enter this code on the control plane:</p>
      <div className="code-row">
        <span className="user-code" data-testid="user-code">
          <span>{first}</span>
          {second !== null ? (
            <>
              <span className="code-sep" aria-hidden="true">
                -
              </span>
              <span>{second}</span>
            </>
          ) : null}
        </span>
        <CopyButton text={code} what="pairing code" testId="copy-code" />
      </div>
      <p className="verify-row">
        <span className="subtle">at </span>
        <span className="mono" data-testid="verification-uri">
          {pairing.verificationUri}
        </span>
      </p>
      <div className="button-row">
        {openUrl ? <OpenInBrowser url={openUrl} /> : null}
        <CopyButton text={pairing.verificationUri} label="Copy address" testId="copy-address" />
      </div>
      <Countdown expiresAt={pairing.expiresAt} />
      {pairing.trouble ? <Trouble trouble={pairing.trouble} /> : null}
    </div>
  );
}

/** Headless: an ordinary link to a new tab. Desktop: main opens the operator's browser (app:open-external). */
function OpenInBrowser({ url }: { url: string }) {
  const transport = getBridge().transport;
  if (transport === 'websocket') {
    return (
      <a className="button button-primary" href={url} target="_blank" rel="noopener noreferrer" data-testid="open-verification">
        Open in browser <span aria-hidden="true">↗</span>
        <span className="sr-only"> (opens a new tab)</span>
      </a>
    );
  }
  return (
    <button
      type="button"
      className="button button-primary"
      data-testid="open-verification"
      onClick={() => void getBridge().invoke('app:open-external', { url })}
    >
      Open in browser
    </button>
  );
}

function Countdown({ expiresAt }: { expiresAt: string }) {
  const now = useNow(1000);
  const left = Math.max(0, Math.floor((Date.parse(expiresAt) - now) / 1000));
  const text = left === 0 ? 'The code has expired.' : `Expires in ${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
  return (
    <p className={left < 60 ? 'countdown warn-text' : 'countdown'} data-testid="pairing-countdown">
      {text}
    </p>
  );
}

function Trouble({ trouble }: { trouble: { message: string; retryAt: string } }) {
  const now = useNow(1000);
  const seconds = Math.max(0, Math.ceil((Date.parse(trouble.retryAt) - now) / 1000));
  return (
    <div className="callout callout-warn" data-testid="pairing-trouble">
      <p role="status">
        {trouble.message} Trying again in {seconds} s; the code stays valid.
      </p>
      <RetryNowButton />
    </div>
  );
}
