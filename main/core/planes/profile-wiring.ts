// The host's profiles wired together (the composition root calls these): the registry that
// opens every profile, the factory table with one session factory per plane, and the
// profiles the command line or the profiles file ask for, created when missing.
import type { HostEvent } from '../../../shared/contract';
import { DEFAULT_PROFILE_ID, type ConnectorKind, type Profile } from '../../../shared/profiles';
import type { RunnerSession } from '../sessions/session';
import type { Logger } from '../base/ports';
import { openProfile, type OpenProfileOptions, type SessionFactories } from '../sessions/open-profile';
import type { ProfileStore } from '../sessions/profile-store';
import { rostSessionFactory, type SharedSessionDeps } from './rost/rost-factory';
import { SessionRegistry, type OpenProfile } from '../sessions/session-registry';

export interface ProfilesDeps {
  store: ProfileStore;
  log: Logger;
  emit(event: HostEvent): void;
  /** How a profile is opened, less the planes' factories (installed later). */
  open: Omit<OpenProfileOptions, 'factories'>;
  /** Removes what turns of an earlier run left (the executor's sweep). */
  sweepStale(): Promise<number>;
}

/**
 * The planes' session factories, one per connector kind. The registry is made before them
 * (each plane's sessions tell the registry when they change), so a profile opens only once
 * the table is installed.
 */
export class PlaneTable {
  private factories: SessionFactories | null = null;

  install(factories: SessionFactories): void {
    this.factories = factories;
  }

  get(): SessionFactories {
    if (!this.factories) throw new Error('no plane is wired yet: install the session factories before opening a profile');
    return this.factories;
  }
}

/** The registry of every profile's session (nothing opened yet: `openAll()` once the planes are installed). */
export function createProfiles(deps: ProfilesDeps): { profiles: SessionRegistry; planes: PlaneTable } {
  const planes = new PlaneTable();
  const profiles = new SessionRegistry({
    store: deps.store,
    log: deps.log,
    sweepStale: () => deps.sweepStale(),
    emit: (event) => deps.emit(event),
    open: (profile: Profile, initial?: Record<string, unknown>): Promise<OpenProfile> =>
      openProfile({ ...deps.open, factories: planes.get() }, profile, initial),
  });
  return { profiles, planes };
}

/** The runtimes changed: every session looks again; the first says `notice`. */
export function runtimesChangedFor(profiles: SessionRegistry): (notice: string | null) => void {
  return (notice) => profiles.sessions().forEach((s, i) => s.runtimesChanged(i === 0 ? notice : null));
}

/** The factory table: a plane is one line here and one folder beside this file. */
export function planeFactories(
  profiles: SessionRegistry,
  planes: { rost: Omit<SharedSessionDeps, 'onChange' | 'onRuntimes'>; sechroom: NonNullable<SessionFactories['sechroom']> },
): SessionFactories {
  return {
    rost: rostSessionFactory({ ...planes.rost, onChange: () => profiles.changed(), onRuntimes: runtimesChangedFor(profiles) }),
    sechroom: planes.sechroom,
  };
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
