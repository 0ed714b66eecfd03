import { RUNTIME_IDS, runtimeLabel } from '../../../../shared/runtimes';
import { useHostStore } from '../../store';
import { ErrorLine } from '../common/error-line';
import { useCommand } from '../common/use-command';

/** The coding agents found on this machine, with their versions; Refresh looks again. */
export function RuntimesCard() {
  const runtimes = useHostStore((s) => s.runner.snapshot?.runtimes);
  const refresh = useCommand('runtimes:refresh');
  return (
    <section className="card" aria-labelledby="runtimes-title">
      <div className="card-head">
        <h2 id="runtimes-title">Runtimes</h2>
        <button type="button" className="button button-small" onClick={() => void refresh.run()} disabled={refresh.pending} data-testid="runtimes-refresh">
          {refresh.pending ? 'Looking…' : 'Refresh'}
        </button>
      </div>
      <dl className="facts" data-testid="runtimes">
        {RUNTIME_IDS.map((name) => {
          const info = runtimes?.[name];
          return (
            <div key={name} className="fact-row">
              <dt>{runtimeLabel(name)}</dt>
              <dd>
                {!runtimes ? (
                  'Looking…'
                ) : info?.installed && info.ready === false ? (
                  <span className="warn-text" data-testid={`runtime-problem-${name}`}>
                    {runtimeLabel(name)}: {info.problem ?? 'installed, not ready'}
                  </span>
                ) : info?.installed ? (
                  <>
                    <span className="ok-text">{info.version ? `v${info.version}` : 'installed (version unknown)'}</span>
                    {info.path ? <span className="path subtle"> {info.path}</span> : null}
                  </>
                ) : (
                  <span className="subtle">not installed</span>
                )}
              </dd>
            </div>
          );
        })}
      </dl>
      {refresh.error ? <ErrorLine error={refresh.error} /> : null}
    </section>
  );
}
