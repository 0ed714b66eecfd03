import { MAX_SESSIONS_LIMIT } from '../../../../shared/settings';
import type { RunnerPairingStartOutput } from '../../../../shared/protocol';
import type { UsageWiring } from '../../usage/usage-wiring';
import type { LendingPort } from '../../lending/lending-gate';
import { profileLending } from '../../lending/profile-lending';
import { allAdmit } from '../../work/claim-admission';
import type { SessionContext } from '../../sessions/open-profile';
import { profileSecretAccount } from '../../sessions/profile-store';
import { RostSession } from './rost-session';
import type { RostSessionDeps } from './rost-session-deps';
import type { RunnerSession } from '../../sessions/session';

/** What every Rost session of the host shares: the machine's runtimes, slots, turns, secrets and events. */
export type SharedSessionDeps = Omit<
  RostSessionDeps,
  | 'profile'
  | 'dir'
  | 'log'
  | 'settings'
  | 'accountState'
  | 'account'
  | 'state'
  | 'executor'
  | 'admission'
  | 'claimsDeferred'
  | 'lendingHeld'
  | 'operatorPairingStart'
> & {
  /** The host's lending terms: composed with each profile's usage admission. */
  lending?: LendingPort;
  usage: Pick<UsageWiring, 'executorFor' | 'admissionFor' | 'claimsDeferredFor' | 'accountState' | 'accountStateFor'>;
  /** The main profile: its model account state setting may come from an env variable. */
  mainProfile: string;
  /** The signed-in operator's `runner.pairing.start`, for the control plane it signed in to. */
  operator: { controlPlaneUrl(): string; runnerPairingStart(input: { name: string; platform: string }): Promise<RunnerPairingStartOutput | null> };
};

/** Makes the Rost session of a profile (the `rost` entry of the session factories). */
export function rostSessionFactory(shared: SharedSessionDeps): (context: SessionContext) => RunnerSession {
  const { usage, mainProfile, operator, lending, ...deps } = shared;
  return ({ profile, dir, settings, state, log }) => {
    // The host's terms, narrowed by the profile's own hours.
    const terms = lending ? profileLending(lending, deps.clock, settings) : undefined;
    return new RostSession({
      ...deps,
      profile,
      dir,
      log,
      state,
      // Never above 8 per profile, whatever the machine allows.
      settings: () => {
        const s = settings.get();
        return { ...s, maxSessions: Math.min(s.maxSessions, MAX_SESSIONS_LIMIT) };
      },
      // The main profile's state may come from an env variable; every profile's is measured on its own alias.
      accountState: profile.id === mainProfile ? () => usage.accountState() : usage.accountStateFor(() => settings.get()),
      account: (url) => profileSecretAccount(profile.id, url),
      // One usage account per alias, shared by every profile that uses it.
      executor: usage.executorFor(() => settings.get().modelAccountAlias),
      // Claims wait on the accounts of the profile's own alias, and on the host's lending terms.
      admission: terms
        ? allAdmit(
            usage.admissionFor(() => settings.get()),
            terms.admission,
          )
        : usage.admissionFor(() => settings.get()),
      claimsDeferred: usage.claimsDeferredFor(() => settings.get()),
      ...(terms ? { lendingHeld: () => terms.reason() } : {}),
      // The signed-in operator belongs to one control plane: other profiles pair by device code.
      operatorPairingStart: async (input) => (settings.get().controlPlaneUrl === operator.controlPlaneUrl() ? operator.runnerPairingStart(input) : null),
    });
  };
}
