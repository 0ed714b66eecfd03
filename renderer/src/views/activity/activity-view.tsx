import { useDeferredValue, useId, useMemo, useState } from 'react';
import type { LogEntry, LogLevel } from '../../../../shared/contract';
import { getBridge } from '../../bridge/instance';
import { useHostStore } from '../../store';
import { CopyButton } from '../common/copy-button';
import { ErrorLine } from '../common/error-line';
import { formatTime } from '../format';
import './activity.css';

const LEVELS: LogLevel[] = ['debug', 'info', 'warn', 'error'];
const SHOWN_LIMIT = 300;

/** A log line's context (`{ unitId: … }`) as `key=value`, short: text only, never HTML. */
export function dataText(data: LogEntry['data']): string {
  if (!data) return '';
  const parts = Object.entries(data).map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const text = parts.join(' ');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

export function logLine(e: LogEntry): string {
  const data = dataText(e.data);
  return `${e.time} ${e.level.toUpperCase()} ${e.component ? `${e.component}: ` : ''}${e.msg}${data ? ` ${data}` : ''}`;
}

/** Recent runner events, newest first, filtered by level and text; Copy takes exactly what is shown. */
export function ActivityView() {
  const logs = useHostStore((s) => s.logs);
  const [minLevel, setMinLevel] = useState<LogLevel>('info');
  const [query, setQuery] = useState('');
  const deferredQuery = useDeferredValue(query);
  const searchId = useId();
  const shown = useMemo(() => {
    const floor = LEVELS.indexOf(minLevel);
    const needle = deferredQuery.trim().toLowerCase();
    return logs
      .filter((e) => LEVELS.indexOf(e.level) >= floor && (!needle || logLine(e).toLowerCase().includes(needle)))
      .slice(-SHOWN_LIMIT)
      .reverse();
  }, [logs, minLevel, deferredQuery]);
  const copyText = useMemo(() => shown.map(logLine).join('\n'), [shown]);

  return (
    <section className="card grow view activity" aria-labelledby="activity-title" data-testid="view-activity">
      <div className="card-head toolbar">
        <h2 id="activity-title">Activity</h2>
        <div className="toolbar-controls">
          <label className="inline-field">
            Show
            <select value={minLevel} onChange={(e) => setMinLevel(e.target.value as LogLevel)} data-testid="log-level">
              {LEVELS.map((l) => (
                <option key={l} value={l}>
                  {l} and above
                </option>
              ))}
            </select>
          </label>
          <label className="inline-field" htmlFor={searchId}>
            Filter
          </label>
          <input
            id={searchId}
            className="input input-search"
            type="search"
            placeholder="text in the line"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            data-testid="log-filter"
          />
          <CopyButton text={copyText} what={`${shown.length} visible lines`} testId="log-copy" />
          <OpenLogsFolder />
        </div>
      </div>
      {shown.length === 0 ? (
        <p className="empty" data-testid="log-empty">
          {logs.length === 0 ? 'Nothing yet. Runner events appear here as they happen.' : 'No line matches. Lower the level or clear the filter.'}
        </p>
      ) : (
        <ol className="log-list" data-testid="log-list" aria-label={`${shown.length} log lines, newest first`} tabIndex={0}>
          {shown.map((e) => (
            <li key={e.seq} className={`log log-${e.level}`}>
              <time dateTime={e.time}>{formatTime(e.time)}</time>
              <span className="log-level">{e.level}</span>
              <span className="log-msg">
                {e.component ? `${e.component}: ` : ''}
                {e.msg}
                {e.data ? <span className="log-data"> {dataText(e.data)}</span> : null}
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** Desktop only: the headless page has no desktop to open a folder on. */
function OpenLogsFolder() {
  const [error, setError] = useState<string | null>(null);
  // Only the desktop app can open a folder on this machine (the headless host has no desktop).
  if (getBridge().transport !== 'ipc') return null;
  return (
    <>
      <button
        type="button"
        className="button"
        data-testid="open-logs"
        onClick={() =>
          void getBridge()
            .invoke('app:open-logs')
            .then((r) => setError(r.ok ? null : r.error.message))
        }
      >
        Open logs folder
      </button>
      {error ? <ErrorLine error={{ message: error }} /> : null}
    </>
  );
}
