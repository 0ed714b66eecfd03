import type { HostEvent } from '../../../shared/contract';
import { errorText } from '../../../shared/errors';
import {
  DEFAULT_PROFILE_ID,
  MAX_PROFILES,
  ProfileIdSchema,
  slugOf,
  SUPPORTED_CONNECTOR_KINDS,
  worstStatus,
  type ConnectorKind,
  type Profile,
  type ProfileSummary,
} from '../../../shared/profiles';
import type { RunnerStatus } from '../../../shared/status';
import { CommandFailure } from '../base/dispatch';
import type { Logger } from '../base/ports';
import type { ProfileSettings } from './profile-settings';
import type { ProfileStore } from './profile-store';
import type { RunnerSession } from './session';

/** A profile opened: its session and its settings. */
export interface OpenProfile {
  session: RunnerSession;
  settings: ProfileSettings;
  /** Stops listening to its settings. */
  close(): void;
}

export interface SessionRegistryDeps {
  store: ProfileStore;
  log: Logger;
  emit(event: HostEvent): void;
  /** Opens a profile: its settings (seeded with `initial` for a new one) and its session. */
  open(profile: Profile, initial?: Record<string, unknown>): Promise<OpenProfile>;
  /** Removes what turns of an earlier run left in the shared turn folders (once, after every profile stopped its leftovers). */
  sweepStale(): Promise<number>;
}

/** Every profile's session, in the order they were added; what the commands, the tray and the quit act on. */
export class SessionRegistry {
  private readonly open = new Map<string, OpenProfile>();
  private started = false;
  private lastListJson = '';

  constructor(private readonly deps: SessionRegistryDeps) {}

  /**
   * Opens every stored profile (the store is loaded). One that `keep` turns down stays in
   * the store, closed: it is not listed, started or counted, and adding it again opens it.
   */
  async openAll(keep: (profile: Profile, session: RunnerSession) => boolean = () => true): Promise<void> {
    for (const profile of this.deps.store.all()) {
      const opened = await this.deps.open(profile);
      if (keep(profile, opened.session)) this.open.set(profile.id, opened);
      else {
        opened.close();
        this.deps.log.info('profile left closed for this start', { profile: profile.id });
      }
    }
  }

  sessions(): RunnerSession[] {
    return [...this.open.values()].map((p) => p.session);
  }

  get(id: string): RunnerSession {
    return this.entry(id).session;
  }

  settingsOf(id: string): ProfileSettings {
    return this.entry(id).settings;
  }

  list(): ProfileSummary[] {
    return this.sessions().map((s) => s.summary());
  }

  /** The status that needs the most attention over every profile (the tray icon, headless health). */
  status(): RunnerStatus {
    return worstStatus(this.sessions().map((s) => s.status())) ?? { state: 'unpaired', reason: 'No profiles.' };
  }

  async start(): Promise<void> {
    this.started = true;
    for (const session of this.sessions()) await session.capabilities.leftovers?.stop();
    const swept = await this.deps.sweepStale();
    if (swept > 0) this.deps.log.info('removed leftovers of turns from a previous run', { count: swept });
    for (const session of this.sessions()) await session.start();
    this.changed();
  }

  async stop(): Promise<void> {
    this.started = false;
    for (const session of this.sessions().reverse()) await session.stop();
    for (const entry of this.open.values()) entry.close();
  }

  async add(input: { name: string; id?: string | undefined; connector: ConnectorKind; controlPlaneUrl?: string | undefined }): Promise<ProfileSummary> {
    if (!SUPPORTED_CONNECTOR_KINDS.includes(input.connector)) {
      throw new CommandFailure('unsupported', `This build cannot run ${input.connector} profiles yet.`);
    }
    if (this.open.size >= MAX_PROFILES) throw new CommandFailure('too_many_profiles', `A host holds at most ${MAX_PROFILES} profiles.`);
    const id = input.id ?? slugOf(input.name);
    if (!ProfileIdSchema.safeParse(id).success) throw new CommandFailure('invalid_input', 'Give the profile a name with letters or digits in it.', 'name');
    if (this.open.has(id)) throw new CommandFailure('profile_exists', `There is already a profile "${id}".`, 'id');
    // A new profile starts from the default one's name and control plane, or from the first open one's.
    const base = (this.open.get(DEFAULT_PROFILE_ID) ?? [...this.open.values()][0])?.settings.get();
    const initial: Record<string, unknown> = {
      ...(base ? { runnerName: `${base.runnerName}-${id}`.slice(0, 100) } : {}),
      ...(input.controlPlaneUrl !== undefined ? { controlPlaneUrl: input.controlPlaneUrl } : base ? { controlPlaneUrl: base.controlPlaneUrl } : {}),
    };
    const profile: Profile = { id, name: input.name, connector: input.connector };
    // A profile left closed at start is still stored: adding it again replaces its entry.
    const stored = this.deps.store.all();
    if (stored.some((p) => p.id === id && p.connector !== input.connector)) {
      throw new CommandFailure('profile_exists', `There is already a profile "${id}" of another kind.`, 'id');
    }
    const opened = await this.deps.open(profile, stored.some((p) => p.id === id) ? undefined : initial);
    // A list that cannot be saved adds nothing: the opened session goes again.
    await this.deps.store.save([...stored.filter((p) => p.id !== id), profile]).catch((error: unknown) => {
      opened.close();
      throw error;
    });
    this.open.set(id, opened);
    if (this.started) {
      await opened.session.capabilities.leftovers?.stop();
      await opened.session.start();
    }
    this.deps.log.info('profile added', { profile: id });
    this.changed();
    return opened.session.summary();
  }

  async rename(id: string, name: string): Promise<ProfileSummary> {
    const session = this.get(id);
    await this.deps.store.save(this.deps.store.all().map((p) => (p.id === id ? { ...p, name } : p)));
    session.rename(name);
    return session.summary();
  }

  /** Only an unpaired profile goes (its turns and results would be lost otherwise); `default` stays. */
  async remove(id: string): Promise<void> {
    const entry = this.entry(id);
    if (id === DEFAULT_PROFILE_ID) throw new CommandFailure('refused', 'The default profile cannot be removed.');
    if (entry.session.identity) throw new CommandFailure('still_paired', 'Unpair this profile before removing it.');
    if (entry.session.activeCount > 0 || entry.session.undelivered > 0) {
      throw new CommandFailure('still_working', 'This profile still has turns running or results to deliver.');
    }
    // Saved first: a list that cannot be saved removes nothing.
    await this.deps.store.save(this.deps.store.all().filter((p) => p.id !== id));
    await entry.session.stop();
    entry.close();
    this.open.delete(id);
    try {
      await this.deps.store.removeFiles(id);
    } catch (error) {
      this.deps.log.warn('could not remove the files of a removed profile', { profile: id, error: errorText(error) });
    }
    this.deps.log.info('profile removed', { profile: id });
    this.changed();
  }

  async pauseAll(minutes: number | null, note: string | null): Promise<ProfileSummary[]> {
    return this.everyProfile((session) => session.pause(minutes, note));
  }

  async resumeAll(): Promise<ProfileSummary[]> {
    return this.everyProfile((session) => session.resume());
  }

  /** Every profile gets the change even when one could not save it; that failure is the answer. */
  private async everyProfile(change: (session: RunnerSession) => Promise<void>): Promise<ProfileSummary[]> {
    let failure: unknown = null;
    for (const session of this.sessions()) await change(session).catch((error: unknown) => (failure ??= error));
    if (failure) throw failure;
    return this.list();
  }

  /** A turn by id, whichever profile runs it. */
  cancelTurn(id: string): boolean {
    return this.sessions().some((s) => s.ownsTurn(id) && s.cancelTurn(id));
  }

  /** What the quit policy acts on: every profile's turns at once. */
  readonly work = ((registry: SessionRegistry) => ({
    get activeCount(): number {
      return registry.activeCount;
    },
    holdClaims: () => registry.sessions().forEach((s) => s.holdClaims()),
    releaseClaims: () => registry.sessions().forEach((s) => s.releaseClaims()),
    cancelAll: (reason: string) => registry.sessions().reduce((n, s) => n + s.cancelAll(reason), 0),
    whenIdle: async () => {
      await Promise.all(registry.sessions().map((s) => s.whenIdle()));
    },
  }))(this);

  get activeCount(): number {
    return this.sessions().reduce((n, s) => n + s.activeCount, 0);
  }

  get undelivered(): number {
    return this.sessions().reduce((n, s) => n + s.undelivered, 0);
  }

  /** A profile's status changed: the switcher and the tray hear the whole list (once per real change). */
  changed(): void {
    if (!this.started) return;
    const list = this.list();
    const json = JSON.stringify(list);
    if (json === this.lastListJson) return;
    this.lastListJson = json;
    this.deps.emit({ event: 'profiles:changed', payload: list });
  }

  private entry(id: string): OpenProfile {
    const entry = this.open.get(id);
    if (!entry) throw new CommandFailure('no_such_profile', `There is no profile "${id}".`, 'profile');
    return entry;
  }
}
