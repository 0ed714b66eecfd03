import { RUNTIME_IDS, runtimeLabel } from '../../../../shared/runtimes';
import { ISOLATION_LABELS, isSandboxed, type IsolationLevel } from '../../../../shared/isolation';
import { useHostStore } from '../../store';
import { wideningWarning } from '../../../../shared/widening';
import { ErrorLine } from '../common/error-line';
import { useCommand } from '../common/use-command';

function Isolation({ level, note }: { level: IsolationLevel; note?: string | undefined }) {
  return (
    <span className={isSandboxed(level) ? 'ok-text isolation' : 'warn-text isolation'} title={note} data-testid="runtime-isolation">
      {' · '}
      {ISOLATION_LABELS[level]}
      {note && !isSandboxed(level) ? ` (${note})` : ''}
    </span>
  );
}

/** The coding agents found on this machine, with their versions and how their turns are isolated; Refresh looks again. */
export function RuntimesCard() {
  const runtimes = useHostStore((s) => s.runner.snapshot?.runtimes);
  const ownConfig = useHostStore((s) => s.settings?.settings.useOwnAgentConfig === true);
  const widening = useHostStore((s) => (s.settings ? wideningWarning(s.settings.settings) : null));
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
                    {info.isolation ? <Isolation level={info.isolation} note={info.isolationNote} /> : null}
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
      {ownConfig ? (
        <p className="callout callout-warn" role="note" data-testid="own-config-warning">
          Turns use your own claude/codex settings, MCP servers and hooks (Settings → What a turn can reach).
        </p>
      ) : null}
      {widening ? (
        <p className="callout callout-warn" role="note" data-testid="widening-warning">
          <span className="badge badge-failed">⚠</span> {widening}. A task’s prompt can use this; Settings → What a turn can reach.
        </p>
      ) : null}
      {refresh.error ? <ErrorLine error={refresh.error} /> : null}
    </section>
  );
}
