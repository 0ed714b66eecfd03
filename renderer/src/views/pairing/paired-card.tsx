import { useState } from 'react';
import { useHostStore } from '../../store';
import { ConfirmDialog } from '../common/confirm-dialog';
import { CopyButton } from '../common/copy-button';
import { ErrorLine } from '../common/error-line';
import { useCommand } from '../common/use-command';
import { formatAgo, formatDateTime } from '../format';
import { useNow } from '../use-now';
import { navigate } from '../use-route';

const BACKENDS = { keychain: 'the system keychain', file: 'an owner-only file on disk', none: 'nowhere (no secret store)' } as const;

/** To whom and where this machine is paired, where its secret is kept, and Unpair. */
export function PairedCard({ imported }: { imported: { runnerId: string; notes: string[] } | null }) {
  const identity = useHostStore((s) => s.runner.snapshot?.identity);
  const storage = useHostStore((s) => s.runner.snapshot?.secretStorage);
  const justApproved = useHostStore((s) => s.runner.snapshot?.pairing?.phase === 'approved');
  const now = useNow(60_000);
  if (!identity || !storage) return null;
  return (
    <section className="card" aria-labelledby="paired-title" data-testid="paired-card">
      <div className="card-head">
        <h2 id="paired-title">Paired</h2>
        {justApproved ? (
          <button type="button" className="button button-small" onClick={() => navigate('dashboard')}>
            Go to the dashboard
          </button>
        ) : null}
      </div>
      {justApproved ? (
        <p className="callout callout-ok" role="status" data-testid="pairing-approved">
          Approved. This machine now takes work as <strong>{identity.name}</strong>.
        </p>
      ) : null}
      {imported?.runnerId === identity.runnerId ? (
        <div className="callout callout-ok" role="status" data-testid="import-done">
          Imported from the rost runner serve state file.
          {imported.notes.length > 0 ? (
            <ul>
              {imported.notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <dl className="facts">
        <dt>Runner name</dt>
        <dd data-testid="paired-name">{identity.name}</dd>
        <dt>Runner id</dt>
        <dd className="with-action">
          <span className="mono" data-testid="paired-id">
            {identity.runnerId}
          </span>
          <CopyButton text={identity.runnerId} what="runner id" />
        </dd>
        <dt>Tenant</dt>
        <Tenant id={identity.tenantId} name={identity.tenantName ?? null} />
        <dt>Control plane</dt>
        <dd className="mono" data-testid="paired-control-plane">
          {identity.controlPlane}
        </dd>
        <dt>Paired</dt>
        <dd>
          {formatDateTime(identity.pairedAt)} ({formatAgo(identity.pairedAt, now)})
        </dd>
        <dt>Secret kept in</dt>
        <dd data-testid="secret-backend">{BACKENDS[storage.backend]}</dd>
      </dl>
      {storage.warning ? (
        <p className="callout callout-warn" data-testid="secret-warning">
          {storage.warning}
        </p>
      ) : null}
      <UnpairButton name={identity.name} controlPlane={identity.controlPlane} backend={BACKENDS[storage.backend]} />
    </section>
  );
}

/** Unpair asks once; when the control plane cannot be reached it offers to forget locally, asking once more. */
function UnpairButton({ name, controlPlane, backend }: { name: string; controlPlane: string; backend: string }) {
  const [asking, setAsking] = useState<'unpair' | 'forget' | null>(null);
  const running = useHostStore((s) => s.turns.active.length);
  const unpair = useCommand('runner:unpair');
  const unreachable = unpair.error?.code === 'unpair_failed';
  const runningNote = running > 0 ? ` ${running} running turn${running === 1 ? '' : 's'} will not be able to report back.` : '';
  return (
    <div className="button-row">
      <button type="button" className="button button-danger" data-testid="unpair" disabled={unpair.pending} onClick={() => setAsking('unpair')}>
        {unpair.pending ? 'Unpairing…' : 'Unpair…'}
      </button>
      {unreachable ? (
        <button type="button" className="button" data-testid="forget" onClick={() => setAsking('forget')}>
          Forget on this machine…
        </button>
      ) : null}
      {unpair.error ? <ErrorLine error={unpair.error} testId="unpair-error" /> : null}
      <ConfirmDialog
        open={asking === 'unpair'}
        title="Unpair this machine?"
        confirmLabel="Unpair"
        destructive
        onCancel={() => setAsking(null)}
        onConfirm={() => {
          setAsking(null);
          void unpair.run({ force: false });
        }}
      >
        <p>
          The runner <strong>{name}</strong> is revoked on <span className="mono">{controlPlane}</span> and its secret is deleted from {backend}. This machine
          stops taking work until it is paired again.{runningNote}
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={asking === 'forget'}
        title="Forget this runner on this machine only?"
        confirmLabel="Forget it here"
        destructive
        onCancel={() => setAsking(null)}
        onConfirm={() => {
          setAsking(null);
          void unpair.run({ force: true });
        }}
      >
        <p>
          The control plane could not be reached, so it still lists <strong>{name}</strong> until someone revokes it there. The secret is deleted here and this
          machine stops taking work.
        </p>
      </ConfirmDialog>
    </div>
  );
}

/** The tenant by the name its control plane gave, the id beside it; by id where no name came. */
function Tenant({ id, name }: { id: string | null; name: string | null }) {
  if (!name) {
    return (
      <dd className="mono" data-testid="paired-tenant">
        {id ?? 'none'}
      </dd>
    );
  }
  return (
    <dd data-testid="paired-tenant">
      <span data-testid="paired-tenant-name">{name}</span>
      {id ? (
        <>
          {' '}
          <span className="mono subtle" data-testid="paired-tenant-id">
            {id}
          </span>
        </>
      ) : null}
    </dd>
  );
}
