import { useState } from 'react';
import { useHostStore } from '../store';

/**
 * What the host met loading the settings (a damaged file set aside, settings back to their
 * defaults), above every view: the Settings tab alone was a place nobody looked after a
 * start that silently reset them. Each line names the file, what was reset and where the
 * copy is; "Dismiss" hides them in this window.
 */
const NONE: readonly string[] = [];

export function SettingsBanner() {
  const warnings = useHostStore((s) => s.settings?.warnings ?? NONE);
  const [dismissed, setDismissed] = useState<readonly string[]>([]);
  const shown = warnings.filter((w) => !dismissed.includes(w));
  if (shown.length === 0) return null;
  return (
    <div className="banner banner-warn banner-row" role="status" data-testid="settings-banner">
      <div>
        {shown.map((warning) => (
          <p key={warning} className="banner-line">
            {warning}
          </p>
        ))}
      </div>
      <span className="banner-actions">
        <a className="button" href="#settings">
          Open Settings
        </a>
        <button type="button" className="button" onClick={() => setDismissed(warnings)}>
          Dismiss
        </button>
      </span>
    </div>
  );
}
