import { useHostStore } from '../../store';
import { formatBytes, formatDuration } from '../format';
import { useNow } from '../use-now';

/** What this host is: version, mode, platform, uptime and where its files live. */
export function HostPanel() {
  const info = useHostStore((s) => s.appInfo);
  return (
    <section className="card" aria-labelledby="host-title">
      <h2 id="host-title">This host</h2>
      <dl className="facts">
        <dt>Version</dt>
        <dd data-testid="app-version">{info ? info.version : '—'}</dd>
        {info?.update ? (
          <>
            <dt>Update</dt>
            <dd data-testid="app-update">{info.update.line}</dd>
          </>
        ) : null}
        <dt>Mode</dt>
        <dd data-testid="app-mode">{info ? (info.mode === 'electron' ? 'Desktop app' : 'Headless host') : '—'}</dd>
        <dt>Machine</dt>
        <dd>{info ? `${info.hostname} · ${info.platform} ${info.arch}` : '—'}</dd>
        <dt>Uptime</dt>
        <dd data-testid="app-uptime">
          <Uptime />
        </dd>
        <dt>Runner memory</dt>
        <dd data-testid="app-rss">
          <RunnerMemory />
        </dd>
        <dt>Data</dt>
        <dd className="path">{info?.dataDir ?? '—'}</dd>
        <dt>Logs</dt>
        <dd className="path">{info?.logDir ?? '—'}</dd>
      </dl>
    </section>
  );
}

function Uptime() {
  const info = useHostStore((s) => s.appInfo);
  const receivedAt = useHostStore((s) => s.appInfoReceivedAt);
  const now = useNow();
  if (!info) return <>—</>;
  return <>{formatDuration(info.uptimeMs + (now - receivedAt))}</>;
}

function RunnerMemory() {
  const rss = useHostStore((s) => s.telemetry.samples.at(-1)?.rssBytes);
  return <>{rss === undefined ? '—' : formatBytes(rss)}</>;
}
