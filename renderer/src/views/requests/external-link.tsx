import { useState, type ReactNode } from 'react';
import { getBridge } from '../../bridge/instance';

/**
 * A link to a page on the control plane (the sign-in page, a confirmation page). In a
 * browser it is an ordinary new-tab link; the desktop window opens no windows, so there
 * the host opens it in the operator's browser (`app:open-external`, which only accepts
 * control-plane addresses), and a refusal is said beside the link. A link that may lead off
 * the control plane (a pull request) shows its address when refused, to copy by hand.
 */
export function ExternalLink({
  href,
  children,
  testId,
  showAddressWhenRefused = false,
}: {
  href: string;
  children: ReactNode;
  testId?: string;
  showAddressWhenRefused?: boolean;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <>
      <a
        href={href}
        target="_blank"
        rel="noopener noreferrer"
        data-testid={testId}
        onClick={(event) => {
          const bridge = getBridge();
          if (bridge.transport !== 'ipc') return;
          event.preventDefault();
          void bridge.invoke('app:open-external', { url: href }).then((result) => setProblem(result.ok ? null : result.error.message));
        }}
      >
        {children}
      </a>
      {problem ? (
        <span className="req-field-error" data-testid={testId ? `${testId}-refused` : undefined}>
          {problem}
          {showAddressWhenRefused ? (
            <>
              {' '}
              <code className="req-mono">{href}</code>
            </>
          ) : null}
        </span>
      ) : null}
    </>
  );
}
