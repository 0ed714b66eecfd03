import { useHostStore } from '../../store';

const BACKEND_WORDS = { keychain: 'the system keychain', file: 'an owner-only file in the data folder', none: 'nothing' } as const;

/**
 * The secret store the host really uses, which is not always the one chosen: a keychain
 * that does not answer falls back to the file store (when allowed), and a change of the
 * choice only takes effect at the next start.
 */
export function SecretStoreInUse({ chosen }: { chosen: string }) {
  const storage = useHostStore((s) => s.runner.snapshot?.secretStorage ?? null);
  if (!storage) return null;
  if (storage.backend === 'none') {
    return (
      <strong className="secret-in-use secret-in-use-none" data-testid="secret-store-in-use">
        In use now: none works — {storage.problem ?? 'no secret store could be opened'}.
      </strong>
    );
  }
  const pending = chosen !== storage.backend;
  return (
    <strong className="secret-in-use" data-testid="secret-store-in-use">
      In use now: {BACKEND_WORDS[storage.backend]}
      {pending
        ? ` — ${chosen === 'keychain' ? 'the keychain' : 'the file store'} is chosen, but did not work when the host started or was chosen since; it is tried again at the next start`
        : ''}
      .
    </strong>
  );
}
