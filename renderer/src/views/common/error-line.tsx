import type { CommandError } from '../../../../shared/result';

/**
 * An error in one line, with the details (the code, and a long message in full) behind
 * a disclosure, so a failure never pushes the view around more than one line.
 */
export function ErrorLine({ error, testId }: { error: CommandError | { message: string; code?: string }; testId?: string }) {
  const [first, ...rest] = error.message.split('\n');
  return (
    <div className="error-line" role="alert" data-testid={testId}>
      <span className="error-text">{first}</span>
      {error.code || rest.length > 0 ? (
        <details className="error-details">
          <summary>Details</summary>
          {rest.length > 0 ? <pre className="mono-block">{rest.join('\n')}</pre> : null}
          {error.code ? (
            <p>
              Code: <code>{error.code}</code>
            </p>
          ) : null}
        </details>
      ) : null}
    </div>
  );
}
