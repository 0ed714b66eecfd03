import { useEffect, useState } from 'react';
import { copyText } from './clipboard';

/** A Copy button that says "Copied" for a moment (announced politely to screen readers). */
export function CopyButton({ text, label = 'Copy', what, testId }: { text: string; label?: string; what?: string; testId?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <span className="copy">
      <button
        type="button"
        className="button"
        data-testid={testId}
        aria-label={what ? `${label} ${what}` : undefined}
        onClick={() => void copyText(text).then((ok) => setState(ok ? 'copied' : 'failed'))}
      >
        {label}
      </button>
      <span className="copy-status" role="status" aria-live="polite">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the text instead' : ''}
      </span>
    </span>
  );
}
