// The host's profiles wired together (bootstrap.ts calls these): one session factory per
// connector kind, the registry that opens every profile with them, and the profiles the
// command line or the profiles file ask for, created when missing.
import type { HostEvent } from '../../../shared/contract';
import { DEFAULT_PROFILE_ID, type ConnectorKind, type Profile } from '../../../shared/profiles';
import type { RunnerSession } from '../sessions/session';
import type { Logger } from '../base/ports';
import { openProfile, type OpenProfileOptions, type SessionFactories } from '../sessions/open-profile';
import type { ProfileStore } from '../sessions/profile-store';
import { rostSessionFactory, type SharedSessionDeps } from './rost/rost-factory';
import { SessionRegistry, type OpenProfile } from '../sessions/session-registry';

export interface ProfileWiringDeps {
  store: ProfileStore;
  log: Logger;
  emit(event: HostEvent): void;
  /** What every Rost session shares, but the two hooks that act on every profile (wired here). */
  rost: Omit<SharedSessionDeps, 'onChange' | 'onRuntimes'>;
  /** The Sechroom host's session factory. */
  sechroom: NonNullable<SessionFactories['sechroom']>;
  /** How a profile is opened, less the factories (wired here). */
  open: Omit<OpenProfileOptions, 'factories'>;
  /** Removes what turns of an earlier run left (the executor's sweep). */
  sweepStale(): Promise<number>;
}

export interface WiredProfiles {
  profiles: SessionRegistry;
  /** The runtimes changed: every session looks again; the first says `notice`. */
  runtimesChanged(notice: string | null): void;
}

/** The registry of every profile's session (not opened yet: `openAll()`). */
export function wireProfiles(deps: ProfileWiringDeps): WiredProfiles {
  const runtimesChanged = (notice: string | null) => profiles.sessions().forEach((s, i) => s.runtimesChanged(i === 0 ? notice : null));
  const factories: SessionFactories = {
    sechroom: deps.sechroom,
    rost: rostSessionFactory({ ...deps.rost, onChange: () => profiles.changed(), onRuntimes: runtimesChanged }),
  };
  const profiles: SessionRegistry = new SessionRegistry({
    store: deps.store,
    log: deps.log,
    sweepStale: () => deps.sweepStale(),
    emit: (event) => deps.emit(event),
    open: (profile: Profile, initial?: Record<string, unknown>): Promise<OpenProfile> => openProfile({ ...deps.open, factories }, profile, initial),
  });
  return { profiles, runtimesChanged };
}

export interface WantedProfile {
  id: string;
  name: string;
  connector: ConnectorKind;
  /** Refuse to start when the profile exists as another kind. */
  strict?: boolean;
}

/** Adds the wanted profiles that are missing; a strict one found as another kind stops the start. */
export async function addWantedProfiles(profiles: SessionRegistry, store: ProfileStore, wanted: readonly WantedProfile[]): Promise<void> {
  for (const { strict, ...profile } of wanted) {
    const found = store.all().find((p) => p.id === profile.id);
    if (!found) await profiles.add(profile);
    else if (strict && found.connector !== profile.connector)
      throw new Error(`Profile "${profile.id}" is a ${found.connector} profile, not ${profile.connector}.`);
  }
}

/**
 * Which stored profiles a start opens. A host started for the Sechroom plane alone leaves
 * the Rost default closed while it was never paired: it would only sit there "Not paired",
 * pointing at a control plane nobody named. A paired one is always opened.
 */
export function keepForPlane(connector: ConnectorKind | undefined): (profile: Profile, session: RunnerSession) => boolean {
  return (profile, session) => connector !== 'sechroom' || profile.id !== DEFAULT_PROFILE_ID || profile.connector !== 'rost' || session.identity !== null;
}
