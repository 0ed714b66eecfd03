import type { DeliveryRecord } from '../../../../shared/delivery';
import { ExternalLink } from '../requests/external-link';

/** A Sechroom task's git delivery in the turn detail: base, branch (pushed or local only), commit, pull request, the note. */
export function GitDeliveryFacts({ git }: { git: DeliveryRecord }) {
  return (
    <>
      <dt>Base</dt>
      <dd className="mono" data-testid="detail-git-base">
        {git.base.ref ?? 'detached HEAD'} @ {git.base.commit.slice(0, 12)}
      </dd>
      <dt>Branch</dt>
      <dd data-testid="detail-git-branch">
        {git.branch ? (
          <>
            <span className="mono">{git.branch}</span> · {git.pushed ? 'pushed' : 'local only'}
          </>
        ) : (
          'no branch (nothing committed)'
        )}
      </dd>
      <dt>Commit</dt>
      <dd className="mono" data-testid="detail-git-commit">
        {git.commit ? git.commit.slice(0, 12) : '—'}
      </dd>
      <dt>Pull request</dt>
      <dd data-testid="detail-git-pr">
        {git.prUrl ? (
          <ExternalLink href={git.prUrl} showAddressWhenRefused testId="detail-pr">
            {git.prUrl}
          </ExternalLink>
        ) : (
          'none'
        )}
      </dd>
      <dt>Delivery</dt>
      <dd data-testid="detail-git-note">
        {git.note}
        {git.keptWorktree ? (
          <>
            {' '}
            — work kept in <span className="mono">{git.keptWorktree}</span>
          </>
        ) : null}
      </dd>
    </>
  );
}
