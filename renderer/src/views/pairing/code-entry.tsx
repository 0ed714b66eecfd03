import { useId, useState } from 'react';
import { ErrorLine } from '../common/error-line';
import { useCommand } from '../common/use-command';

/**
 * "Have a code from the web? Enter it": pairs with a code an operator got on the control
 * plane's own page (the seed's `--user-code`), instead of asking for a new one here.
 */
export function CodeEntry() {
  const [code, setCode] = useState('');
  const pair = useCommand('pairing:start-with-code');
  const inputId = useId();
  const hintId = useId();
  return (
    <form
      className="import-form code-entry"
      data-testid="code-entry"
      onSubmit={(event) => {
        event.preventDefault();
        if (!code.trim()) return;
        void pair.run({ code: code.trim() });
      }}
    >
      <label htmlFor={inputId}>Have a code from the web? Enter it</label>
      <div className="input-row">
        <input
          id={inputId}
          className="input mono"
          type="text"
          spellCheck={false}
          autoComplete="off"
          placeholder="XXXX-XXXX"
          maxLength={64}
          aria-describedby={hintId}
          value={code}
          onChange={(event) => setCode(event.target.value)}
          data-testid="code-entry-input"
        />
        <button type="submit" className="button" disabled={pair.pending || !code.trim()} data-testid="code-entry-submit">
          {pair.pending ? 'Pairing…' : 'Pair with this code'}
        </button>
      </div>
      <p id={hintId} className="hint">
        Someone signed in to the control plane can make a code for this machine there; it pairs without a second approval.
      </p>
      {pair.error ? <ErrorLine error={pair.error} testId="code-entry-error" /> : null}
    </form>
  );
}
