import type { ReactNode } from 'react';
import { useHostStore } from '../../store';
import { formatAgo, formatBytes, formatDuration } from '../format';
import { useNow } from '../use-now';

/** One figure people act on: a label, a big value, one line of context. Fixed size, so nothing jumps. */
function Figure({ label, value, sub, testId }: { label: string; value: ReactNode; sub: ReactNode; testId: string }) {
  return (
    <div className="figure" data-testid={testId}>
      <dt className="figure-label">{label}</dt>
      <dd className="figure-value">{value}</dd>
      <dd className="figure-sub">{sub}</dd>
    </div>
  );
}

/** The live numbers: sessions, CPU, memory, heartbeat, model account. */
export function Figures() {
  return (
    <dl className="figures" aria-label="Live figures">
      <SessionsFigure />
      <CpuFigure />
      <MemoryFigure />
      <HeartbeatFigure />
      <AccountFigure />
    </dl>
  );
}

function SessionsFigure() {
  const sessions = useHostStore((s) => s.runner.snapshot?.sessions);
  const undelivered = useHostStore((s) => s.runner.snapshot?.results?.undelivered ?? 0);
  const free = sessions ? (sessions.active === 0 ? 'none in use' : `${sessions.max - sessions.active} free`) : '\u00a0';
  return (
    <Figure
      label="Sessions"
      testId="fig-sessions"
      value={sessions ? `${sessions.active} / ${sessions.max}` : '—'}
      sub={
        undelivered > 0 ? (
          <span className="warn-text" data-testid="undelivered">
            {undelivered} result{undelivered === 1 ? '' : 's'} not delivered yet
          </span>
        ) : (
          free
        )
      }
    />
  );
}

function CpuFigure() {
  const cpu = useHostStore((s) => s.telemetry.samples.at(-1)?.cpuPercent);
  return <Figure label="CPU" testId="fig-cpu" value={cpu === undefined ? '—' : `${Math.round(cpu)} %`} sub="all cores" />;
}

function MemoryFigure() {
  const latest = useHostStore((s) => s.telemetry.samples.at(-1));
  if (!latest) return <Figure label="Memory" testId="fig-memory" value="—" sub={'\u00a0'} />;
  const used = latest.memTotalBytes - latest.memFreeBytes;
  const percent = latest.memTotalBytes > 0 ? Math.round((used / latest.memTotalBytes) * 100) : 0;
  return <Figure label="Memory" testId="fig-memory" value={`${percent} %`} sub={`${formatBytes(used)} of ${formatBytes(latest.memTotalBytes)}`} />;
}

function HeartbeatFigure() {
  const heartbeat = useHostStore((s) => s.runner.snapshot?.heartbeat);
  const paired = useHostStore((s) => s.runner.snapshot?.identity != null);
  const now = useNow(1000);
  if (!heartbeat || !paired) return <Figure label="Last heartbeat" testId="fig-heartbeat" value="—" sub={paired ? '\u00a0' : 'not paired'} />;
  const sub =
    heartbeat.consecutiveFailures > 0
      ? `${heartbeat.consecutiveFailures} failed in a row`
      : heartbeat.onClaim
        ? 'rides on the held claim'
        : `every ${formatDuration(heartbeat.intervalMs)}${heartbeat.longPoll ? ' · long-poll' : ''}`;
  return <Figure label="Last heartbeat" testId="fig-heartbeat" value={heartbeat.lastOkAt ? formatAgo(heartbeat.lastOkAt, now) : 'not yet'} sub={sub} />;
}

function AccountFigure() {
  const account = useHostStore((s) => s.runner.snapshot?.modelAccount);
  return (
    <Figure
      label="Model account"
      testId="fig-account"
      value={<span className="figure-text">{account?.alias ?? '—'}</span>}
      sub={account ? `state: ${account.state}` : '\u00a0'}
    />
  );
}
