import { useId, useState } from 'react';
import type { CommandOutput } from '../../../../shared/contract';
import { getBridge } from '../../bridge/instance';
import { ErrorLine } from '../common/error-line';
import { useCommand } from '../common/use-command';

/** Hands a zip the host sent over to the browser as a download. */
function download(fileName: string, zipBase64: string): void {
  const bytes = Uint8Array.from(atob(zipBase64), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/zip' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function outcomeLine(answer: CommandOutput<'app:diagnostics'>): string | null {
  if (answer.savedTo) return `Saved to ${answer.savedTo}.`;
  return answer.zipBase64 ? `Downloaded ${answer.fileName}.` : null;
}

/** "Save diagnostics…": a redacted zip for a bug report (the desktop asks where; a browser downloads it). */
export function DiagnosticsCard() {
  const titleId = useId();
  const save = useCommand('app:diagnostics');
  const [done, setDone] = useState<string | null>(null);
  const desktop = getBridge().transport === 'ipc';
  const onSave = async () => {
    setDone(null);
    const result = await save.run(undefined);
    if (!result.ok) return;
    if (result.value.zipBase64) download(result.value.fileName, result.value.zipBase64);
    setDone(outcomeLine(result.value));
  };
  return (
    <section className="card" aria-labelledby={titleId} data-testid="diagnostics-card">
      <h2 id={titleId}>Diagnostics</h2>
      <p className="hint">
        A zip for a bug report: the newest logs, the settings, versions, the runtimes and their readiness, isolation, the profiles and storage. Secrets are
        removed before it is written; read it before you share it.
      </p>
      <button type="button" className="button" disabled={save.pending} onClick={() => void onSave()} data-testid="save-diagnostics">
        {save.pending ? 'Collecting…' : desktop ? 'Save diagnostics…' : 'Download diagnostics'}
      </button>
      {done ? (
        <p className="hint" role="status" data-testid="diagnostics-status">
          {done}
        </p>
      ) : null}
      {save.error ? <ErrorLine error={save.error} /> : null}
    </section>
  );
}
