import type { SpendingCapView, UsageAccountView } from '../../../../shared/usage';
import { capAmounts, capName, resetText } from '../../../../shared/usage-text';

/**
 * An account's spending caps (settings, "Spending"): a bar per cap with what was spent of it
 * in its window and when the window resets. A cost cap over an account whose runtime
 * reports no cost (codex) says so: the cost is unknown and the cap cannot hold the account.
 */
export function CapBars({ account, now }: { account: UsageAccountView; now: number }) {
  const caps = account.caps ?? [];
  if (caps.length === 0) return null;
  return (
    <div className="usage-caps" data-testid="usage-caps">
      {caps.map((cap) => (
        <CapBar key={cap.id} cap={cap} now={now} />
      ))}
    </div>
  );
}

function CapBar({ cap, now }: { cap: SpendingCapView; now: number }) {
  const label = capName(cap.id);
  const reset = resetText(cap.resetsAt, now);
  const unknown = cap.costUnknown && !cap.reached;
  const amounts = unknown ? `cost unknown (${capAmounts(cap)} priced)` : capAmounts(cap);
  return (
    <div className="usage-window" data-testid={`usage-cap-${cap.id}`}>
      <span className="usage-window-label">{label}</span>
      <meter
        min={0}
        max={cap.limit}
        low={cap.limit * 0.8}
        high={cap.limit * 0.95}
        optimum={0}
        value={Math.min(cap.used, cap.limit)}
        aria-label={`${label}: ${amounts}, ${reset}`}
      />
      <span className="usage-window-text">
        {amounts} · {reset}
        {cap.reached ? <strong className="warn-text"> · reached</strong> : null}
      </span>
      {unknown ? (
        <span className="subtle usage-cap-unknown" data-testid="usage-cap-unknown">
          This runtime reports no cost for some or all turns, so the cost cap cannot be enforced for this account; its tokens still count.
        </span>
      ) : null}
    </div>
  );
}
