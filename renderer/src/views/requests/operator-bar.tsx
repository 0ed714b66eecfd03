import { useState } from 'react';
import type { OperatorIdentityView } from '../../../../shared/operator';
import type { CommandError } from '../../../../shared/result';
import { Untrusted } from './chips';
import { signOut } from './requests-actions';

const ROLE_LABEL: Record<OperatorIdentityView['role'], string> = { tenant_admin: 'Tenant admin', member: 'Member' };

/** Who is signed in, and the way out. */
export function OperatorBar({ identity }: { identity: OperatorIdentityView }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<CommandError | null>(null);
  return (
    <div className="req-operator" data-testid="operator-bar">
      <span>
        Signed in as <Untrusted text={identity.name} className="req-operator-name" />
        <span className="req-muted"> · </span>
        <span data-testid="operator-role">{ROLE_LABEL[identity.role]}</span>
      </span>
      <button
        type="button"
        className="req-button req-button-quiet"
        disabled={busy}
        data-testid="sign-out"
        onClick={() => {
          setBusy(true);
          void signOut().then((result) => {
            setBusy(false);
            setError(result.ok ? null : result.error);
          });
        }}
      >
        {busy ? 'Signing out…' : 'Sign out'}
      </button>
      {error ? (
        <span className="req-error" role="alert">
          {error.message}
        </span>
      ) : null}
    </div>
  );
}
