import { useMemo, useState } from 'react';
import type { LogLevel } from '../../../shared/contract';
import { useHostStore } from '../store';
import { formatTime } from './format';

const LEVELS: LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** Recent runner events, newest first, filterable by level. Text only, never HTML. */
export function ActivityView() {
  const logs = useHostStore((s) => s.logs);
  const [minLevel, setMinLevel] = useState<LogLevel>('info');
  const shown = useMemo(() => {
    const floor = LEVELS.indexOf(minLevel);
    return logs.filter((e) => LEVELS.indexOf(e.level) >= floor).slice(-200).reverse();
  }, [logs, minLevel]);

  return (
    <section className="card grow" aria-labelledby="activity-title">
      <div className="card-head">
        <h2 id="activity-title">Activity</h2>
        <label className="inline-field">
          Show
          <select value={minLevel} onChange={(e) => setMinLevel(e.target.value as LogLevel)} aria-label="Minimum level">
            {LEVELS.map((l) => (
              <option key={l} value={l}>
                {l} and above
              </option>
            ))}
          </select>
        </label>
      </div>
      {shown.length === 0 ? (
        <p className="empty">Nothing yet. Runner events appear here as they happen.</p>
      ) : (
        <ol className="log-list" data-testid="log-list">
          {shown.map((e) => (
            <li key={e.seq} className={`log log-${e.level}`}>
              <time dateTime={e.time}>{formatTime(e.time)}</time>
              <span className="log-level">{e.level}</span>
              <span className="log-msg">
                {e.component ? `${e.component}: ` : ''}
                {e.msg}
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
