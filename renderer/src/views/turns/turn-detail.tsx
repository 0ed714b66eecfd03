import { useEffect, useRef, useState } from 'react';
import type { TurnView } from '../../../../shared/turns';
import { ConfirmDialog } from '../common/confirm-dialog';
import { ErrorLine } from '../common/error-line';
import { useCommand } from '../common/use-command';
import { formatDateTime } from '../format';
import { useNow } from '../use-now';
import { focusTurnRow } from './focus-turn';
import { GitDeliveryFacts } from './git-delivery-facts';
import { TurnTranscriptBlock } from './turn-transcript';
import { deliveryText, elapsed, LEASE_LABELS, PHASE_LABELS, runtimeLabel, seatLabel, sechroomFacts, tokensText } from './turn-text';

const FINISHED = new Set(['succeeded', 'failed', 'canceled']);

/** Everything about one turn, its redacted output tail (monospace text, never HTML) and Cancel. */
export function TurnDetail({ turn, loading = false }: { turn: TurnView | null; loading?: boolean }) {
  if (!turn) {
    return (
      <section className="card turn-detail" aria-label="Turn details" data-testid="turn-detail">
        <p className="empty">Choose a turn to see its output, summary and lease.</p>
      </section>
    );
  }
  const finished = FINISHED.has(turn.phase);
  const tokens = tokensText(turn);
  return (
    <section className="card turn-detail" aria-labelledby="turn-detail-title" data-testid="turn-detail">
      <div className="card-head">
        <h2 id="turn-detail-title" className="detail-title">
          {seatLabel(turn)}
        </h2>
        <span className={`badge badge-${turn.phase}`} data-testid="detail-phase">
          {PHASE_LABELS[turn.phase]}
        </span>
      </div>
      <dl className="facts facts-compact">
        <dt>Runtime</dt>
        <dd>{runtimeLabel(turn)}</dd>
        <dt>Build request</dt>
        <dd className="mono">{turn.buildRequestId ?? '—'}</dd>
        <dt>Started</dt>
        <dd>{formatDateTime(turn.startedAt)}</dd>
        <dt>{finished ? 'Duration' : 'Elapsed'}</dt>
        <dd>
          <DetailElapsed turn={turn} />
        </dd>
        <dt>Tokens</dt>
        <dd>{tokens ?? 'not known yet'}</dd>
        {turn.costUsd !== null || (finished && turn.tokens) ? (
          <>
            <dt>Cost</dt>
            {/* A runtime that reports no cost (codex): unknown, never $0. */}
            <dd data-testid="detail-cost">{turn.costUsd !== null ? `$${turn.costUsd.toFixed(4)}` : 'unknown'}</dd>
          </>
        ) : null}
        {turn.delivery ? (
          <>
            <dt>Result</dt>
            <dd data-testid="detail-delivery">
              <DetailDelivery turn={turn} />
            </dd>
          </>
        ) : null}
        {turn.git ? <GitDeliveryFacts git={turn.git} /> : null}
        <dt>Lease</dt>
        <dd>{turn.plane === 'sechroom' ? sechroomFacts(turn).join(' · ') || '—' : turn.lease ? LEASE_LABELS[turn.lease] : '—'}</dd>
        <dt>Turn id</dt>
        <dd className="mono">{turn.id}</dd>
      </dl>
      {turn.reason ? (
        <p className="detail-reason" data-testid="detail-reason">
          {turn.reason}
        </p>
      ) : null}
      {turn.summary ? (
        <div className="detail-block">
          <h3>Summary</h3>
          <p className="detail-summary" data-testid="detail-summary">
            {turn.summary}
          </p>
        </div>
      ) : null}
      <TurnTranscriptBlock turnId={turn.id} live={!finished} />
      <OutputTail text={turn.outputTail} live={!finished} loading={loading} />
      {!finished ? <CancelTurn turn={turn} /> : null}
    </section>
  );
}

function DetailDelivery({ turn }: { turn: TurnView }) {
  const now = useNow(1000);
  return <>{deliveryText(turn, now)?.text}</>;
}

function DetailElapsed({ turn }: { turn: TurnView }) {
  const now = useNow(1000);
  return <>{elapsed(turn, now)}</>;
}

/** Follows new output while the reader is at the bottom; leaves them alone once they scroll up. */
function OutputTail({ text, live, loading }: { text: string; live: boolean; loading: boolean }) {
  const ref = useRef<HTMLPreElement>(null);
  const pinned = useRef(true);
  useEffect(() => {
    const el = ref.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [text]);
  return (
    <div className="detail-block grow-block">
      <h3 id="output-tail-title">Output{live ? ' (live, redacted)' : ' (redacted)'}</h3>
      <pre
        ref={ref}
        className="output-tail"
        tabIndex={0}
        aria-labelledby="output-tail-title"
        data-testid="output-tail"
        onScroll={(event) => {
          const el = event.currentTarget;
          pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        }}
      >
        {text || (loading ? 'Loading…' : live ? 'No output yet.' : 'No output.')}
      </pre>
    </div>
  );
}

function CancelTurn({ turn }: { turn: TurnView }) {
  const [asking, setAsking] = useState(false);
  const cancel = useCommand('turns:cancel');
  const confirmed = useRef(false);
  // After the dialog gave focus back (its effect runs first), move it to the turn's row.
  useEffect(() => {
    if (asking || !confirmed.current) return;
    confirmed.current = false;
    focusTurnRow(turn.id);
  }, [asking, turn.id]);
  const canceling = turn.phase === 'canceling' || turn.lease === 'cancel_requested';
  return (
    <div className="detail-actions">
      <button type="button" className="button button-danger" data-testid="cancel-turn" disabled={canceling || cancel.pending} onClick={() => setAsking(true)}>
        {canceling ? 'Canceling…' : 'Cancel turn…'}
      </button>
      {cancel.error ? <ErrorLine error={cancel.error} /> : null}
      <ConfirmDialog
        open={asking}
        title="Cancel this turn?"
        confirmLabel="Cancel turn"
        cancelLabel="Keep running"
        destructive
        busy={cancel.pending}
        onCancel={() => setAsking(false)}
        onConfirm={() => {
          confirmed.current = true;
          setAsking(false);
          void cancel.run({ id: turn.id });
        }}
      >
        <p>
          The agent working for <strong>{seatLabel(turn)}</strong> is stopped now, with the processes it started, and the control plane is told you canceled the
          turn.
        </p>
      </ConfirmDialog>
    </div>
  );
}
