import { isHttpUrl } from '../../../../shared/operator';
import { ExternalLink } from './external-link';
import { useNow } from '../use-now';
import { followHandoff, dropHandoff } from './requests-actions';
import type { Handoff } from './requests-store';
import { usePolling } from './requests-sync';

const FOLLOW_EVERY_MS = 2_000;
const WHAT: Record<Handoff['action'], string> = { pause: 'pause', resume: 'resume', cancel: 'cancel' };

/**
 * The control plane answered 202: a human must confirm in the browser. Shows the link and
 * follows the confirmation (and the request) until something changes.
 */
export function HandoffPanel({ handoff }: { handoff: Handoff }) {
  const now = useNow(1000);
  usePolling(() => followHandoff(handoff.requestId), FOLLOW_EVERY_MS, handoff.confirmationId);
  const left = Math.max(0, Math.round((Date.parse(handoff.expiresAt) - now) / 1000));
  return (
    <div className="req-handoff" role="region" aria-label="Confirm in the browser" data-testid="handoff">
      <h4 className="req-confirm-title">Confirm in the browser</h4>
      <p>
        The control plane wants a person to confirm this {WHAT[handoff.action]}. Open the page, check it, and confirm there; this view follows it and updates on
        its own.
      </p>
      <p className="req-handoff-link">
        {isHttpUrl(handoff.url) ? (
          <ExternalLink href={handoff.url} testId="handoff-link">
            Open the confirmation page
          </ExternalLink>
        ) : null}
        <span className="req-mono req-url" data-testid="handoff-url">
          {handoff.url}
        </span>
      </p>
      <p className="req-muted" role="status" aria-live="polite">
        Waiting for a decision… {left > 0 ? `expires in ${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}` : 'should expire any moment'}
      </p>
      <button type="button" className="req-button req-button-quiet" onClick={() => dropHandoff(handoff.requestId)}>
        Stop following
      </button>
    </div>
  );
}
