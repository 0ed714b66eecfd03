import { useState } from 'react';
import type { CapacityView } from '../../../../shared/operator';
import type { CommandError } from '../../../../shared/result';
import { getBridge } from '../../bridge/instance';
import { useNow } from '../use-now';
import { Untrusted } from './chips';
import { formatAge } from './format-request';
import { usePolling } from './requests-sync';
import './capacity-table.css';

const CAPACITY_EVERY_MS = 15_000;

function sessions(r: CapacityView['runners'][number]): string {
  if (r.activeSessions === null) return '—';
  return r.maxSessions === null ? String(r.activeSessions) : `${r.activeSessions} of ${r.maxSessions}`;
}

/**
 * The tenant's runners as their last heartbeats described them (`software_factory.capacity.list`,
 * read-only and advisory): runtimes, sessions in use and the model account's usage state.
 * Names and states are the runners' own words, shown as text.
 */
export function CapacityTable() {
  const [view, setView] = useState<CapacityView | null>(null);
  const [error, setError] = useState<CommandError | null>(null);
  const now = useNow(5_000);
  usePolling(async () => {
    const result = await getBridge().invoke('requests:capacity');
    if (result.ok) {
      setView(result.value);
      setError(null);
    } else setError(result.error);
  }, CAPACITY_EVERY_MS);

  return (
    <section className="req-card req-capacity" aria-labelledby="capacity-title" data-testid="capacity">
      <h3 id="capacity-title" className="req-capacity-title">
        Runner capacity
      </h3>
      {error ? (
        <p className="req-error" role="alert" data-testid="capacity-error">
          {error.message}
        </p>
      ) : null}
      {!view ? (
        <p className="req-empty">{error ? 'Capacity could not be loaded.' : 'Loading runner capacity…'}</p>
      ) : view.runners.length === 0 ? (
        <p className="req-empty">No runner of this tenant has reported yet.</p>
      ) : (
        <table className="req-capacity-table">
          <thead>
            <tr>
              <th scope="col">Runner</th>
              <th scope="col">Runtimes</th>
              <th scope="col">Active sessions</th>
              <th scope="col">Usage</th>
              <th scope="col">Reported</th>
            </tr>
          </thead>
          <tbody>
            {view.runners.map((r) => (
              <tr key={r.runnerId} data-testid="capacity-row">
                <td>
                  <Untrusted text={r.name} className="req-clamp-1" />
                  {r.paused ? <span className="req-muted"> · paused</span> : null}
                </td>
                <td>{r.runtimes.length ? r.runtimes.join(', ') : 'none ready'}</td>
                <td>{sessions(r)}</td>
                <td>
                  <Untrusted text={r.usageState} className="req-clamp-1" />
                </td>
                <td>{formatAge(r.observedAt, now)} ago</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
