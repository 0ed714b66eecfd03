import { useId, useState } from 'react';
import { ErrorLine } from '../common/error-line';
import { useCommand } from '../common/use-command';

/** Takes over the runner of an existing `rost runner serve` state file instead of pairing again. */
export function ImportForm({ onImported }: { onImported: (result: { runnerId: string; notes: string[] }) => void }) {
  const [file, setFile] = useState('');
  const importState = useCommand('runner:import');
  const inputId = useId();
  const hintId = useId();
  return (
    <section className="card" aria-labelledby="import-title" data-testid="import-card">
      <h2 id="import-title">Import from rost runner serve</h2>
      <form
        className="import-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (!file.trim()) return;
          void importState.run({ file: file.trim() }).then((result) => {
            if (result.ok) onImported(result.value);
          });
        }}
      >
        <label htmlFor={inputId}>State file</label>
        <div className="input-row">
          <input
            id={inputId}
            className="input mono"
            type="text"
            spellCheck={false}
            autoComplete="off"
            placeholder="/tmp/rost-runner-1a2b3c4d.json"
            aria-describedby={hintId}
            value={file}
            onChange={(event) => setFile(event.target.value)}
            data-testid="import-path"
          />
          <button type="submit" className="button" disabled={importState.pending || !file.trim()} data-testid="import-submit">
            {importState.pending ? 'Importing…' : 'Import'}
          </button>
        </div>
        <p id={hintId} className="hint">
          Already ran <code>rost runner serve</code> here? Import its state file to keep the same runner; the secret moves into this app's secret store.
        </p>
      </form>
      {importState.error ? <ErrorLine error={importState.error} testId="import-error" /> : null}
    </section>
  );
}
