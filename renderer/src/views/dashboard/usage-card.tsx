import type { TokenTotals, UsageAccountView, UsageWindow } from '../../../../shared/usage';
import { accountTitle, admissionText, costText, percentText, resetText, windowName } from '../../../../shared/usage-text';
import { useHostStore } from '../../store';
import { formatTokens } from '../format';
import { useNow } from '../use-now';
import { CapBars } from './cap-bars';

/**
 * The lent model accounts, like CodexBar: per account a bar per rate-limit window with its
 * reset ("resets in 2 h 14 min (at 16:30)"), its spending caps, this runner's tokens and cost
 * today and this week, whether claims are admitted, and the binding window over the last day.
 */
export function UsageCard() {
  const usage = useHostStore((s) => s.usage);
  const now = useNow(30_000);
  const accounts = usage?.accounts ?? [];
  return (
    <section className="card usage-card" aria-labelledby="usage-title" data-testid="usage-card">
      <div className="card-head">
        <h2 id="usage-title">Model accounts</h2>
        {usage ? <span className="subtle">claims wait at {percentText(usage.reservePercent)} left or less</span> : null}
      </div>
      {accounts.length === 0 ? (
        <p className="subtle" data-testid="usage-empty">
          No usage yet. Codex reports its plan's windows during a turn; claude reports tokens and cost when a turn ends.
        </p>
      ) : (
        <div className="usage-accounts">
          {accounts.map((a) => (
            <AccountMeters key={a.key} account={a} now={now} />
          ))}
        </div>
      )}
    </section>
  );
}

function AccountMeters({ account, now }: { account: UsageAccountView; now: number }) {
  const deferred = account.admission.state === 'deferred';
  const windows = (['primary', 'secondary'] as const).flatMap((which) => {
    const w = account.windows[which];
    return w ? [{ which, w }] : [];
  });
  return (
    <article className="usage-account" data-testid={`usage-account-${account.key}`} aria-label={accountTitle(account)}>
      <header className="usage-account-head">
        <h3>{accountTitle(account)}</h3>
        <span
          className={deferred ? 'badge usage-badge usage-badge-deferred' : 'badge usage-badge usage-badge-ok'}
          data-testid="usage-admission"
          title={account.admission.state === 'deferred' ? account.admission.reason : 'Claims are admitted for this account.'}
        >
          {admissionText(account.admission, now)}
        </span>
      </header>
      {account.limited ? (
        <p className="usage-limited warn-text" data-testid="usage-limited">
          Usage limit reached{account.limited.until !== null ? `; ${resetText(account.limited.until, now)}` : '; re-checked every 15 min'}
        </p>
      ) : null}
      {account.admission.state === 'deferred' && account.admission.cause === 'cap' ? (
        <p className="usage-limited warn-text" data-testid="usage-cap-reason">
          {account.admission.reason}
        </p>
      ) : null}
      {windows.length === 0 ? (
        <p className="subtle usage-no-windows">
          {account.runtime === 'claude'
            ? 'Claude reports no plan windows; a usage-limit failure marks the account limited until its reset.'
            : 'Codex has not reported plan windows for this account yet (API-key accounts have none).'}
        </p>
      ) : null}
      {windows.map(({ which, w }) => (
        <WindowBar key={which} label={windowName(w, which)} window={w} now={now} testId={`usage-window-${which}`} />
      ))}
      <CapBars account={account} now={now} />
      <dl className="facts facts-compact usage-totals">
        <div className="fact-row">
          <dt>Today</dt>
          <dd data-testid="usage-today">
            <Totals totals={account.today} />
          </dd>
        </div>
        <div className="fact-row">
          <dt>This week</dt>
          <dd data-testid="usage-week">
            <Totals totals={account.week} />
          </dd>
        </div>
      </dl>
      <Sparkline points={account.history} now={now} />
    </article>
  );
}

/** Tokens, cost (unknown where the runtime reports none, as codex: never $0) and turns. */
function Totals({ totals }: { totals: TokenTotals }) {
  const cost = ` · ${costText(totals)}`;
  return (
    <>
      {formatTokens(totals.inputTokens)} in · {formatTokens(totals.outputTokens)} out{cost} · {totals.turns} {totals.turns === 1 ? 'turn' : 'turns'}
    </>
  );
}

function WindowBar({ label, window, now, testId }: { label: string; window: UsageWindow; now: number; testId: string }) {
  const reset = resetText(window.resetsAt, now);
  const used = percentText(window.usedPercent);
  return (
    <div className="usage-window" data-testid={testId}>
      <span className="usage-window-label">{label}</span>
      <meter min={0} max={100} low={80} high={95} optimum={0} value={window.usedPercent} aria-label={`${label}: ${used} used, ${reset}`} />
      <span className="usage-window-text">
        {used} used · {reset}
      </span>
    </div>
  );
}

const SPARK_W = 240;
const SPARK_H = 28;

/** The binding window's used percent over the last day, as one light SVG line. */
function Sparkline({ points, now }: { points: Array<[number, number]>; now: number }) {
  if (points.length < 2) return null;
  const from = now - 86_400_000;
  const x = (t: number) => ((Math.max(from, t) - from) / 86_400_000) * SPARK_W;
  const y = (p: number) => SPARK_H - (Math.min(100, Math.max(0, p)) / 100) * SPARK_H;
  const d = points.map(([t, p], i) => `${i === 0 ? 'M' : 'L'}${x(t).toFixed(1)},${y(p).toFixed(1)}`).join(' ');
  const last = points[points.length - 1]!;
  return (
    <figure className="usage-spark" data-testid="usage-sparkline">
      <svg viewBox={`0 0 ${SPARK_W} ${SPARK_H}`} width={SPARK_W} height={SPARK_H} role="img" aria-label={`Used over the last day; now ${percentText(last[1])}`}>
        <path d={d} fill="none" stroke="var(--chart-1)" strokeWidth="1.5" />
      </svg>
      <figcaption className="subtle">last 24 h</figcaption>
    </figure>
  );
}
