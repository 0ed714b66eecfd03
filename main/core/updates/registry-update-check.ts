// The headless host's update check: the npm registry's latest version of the package, at
// most once a day (the last check is kept in the data folder, so a restart does not ask
// again), never in the way of the start, and quiet about network trouble (a debug line).
import semver from 'semver';
import { z } from 'zod';
import { errorText } from '../../../shared/errors';
import { readJsonFile, writePrivateFile } from '../base/json-file';
import type { Clock, Logger, TimerHandle } from '../base/ports';
import type { FetchLike } from '../connectors/http-json';

export const DEFAULT_UPDATE_URL = 'https://registry.npmjs.org/runner-tray/latest';
export const UPDATE_CHECK_PERIOD_MS = 24 * 3_600_000;
/** The longest a check waits for the registry. */
const CHECK_TIMEOUT_MS = 15_000;

const LatestSchema = z.looseObject({ version: z.string().refine((v) => semver.valid(v) !== null) });
const StateSchema = z.object({ checkedAt: z.number().int().min(0), latest: z.string().nullable() });

export interface RegistryUpdateCheckDeps {
  currentVersion: string;
  /** The registry's `…/latest` document (RUNNER_TRAY_UPDATE_URL for tests). */
  url: string;
  fetch: FetchLike;
  clock: Clock;
  /** Where the last check's time and answer are kept. */
  stateFile: string;
  /** The `updateCheck` setting. */
  enabled(): boolean;
  log: Logger;
  /** A newer version is known: called once per version. */
  onAvailable(version: string): void;
}

export class RegistryUpdateCheck {
  private timer: TimerHandle | null = null;
  private told: string | null = null;
  private stopped = false;
  private latestKnown: string | null = null;

  constructor(private readonly deps: RegistryUpdateCheckDeps) {}

  /** The newer version known, or null. */
  get available(): string | null {
    return this.latestKnown && semver.gt(this.latestKnown, this.deps.currentVersion) ? this.latestKnown : null;
  }

  /** Reads the last check and checks now when it is a day old (or never was); resolves when that is settled. */
  async start(): Promise<void> {
    const read = await readJsonFile(this.deps.stateFile, StateSchema).catch(() => ({ kind: 'missing' }) as const);
    const last = read.kind === 'ok' ? read.value : null;
    if (last) this.learn(last.latest);
    const due = last ? last.checkedAt + UPDATE_CHECK_PERIOD_MS - this.deps.clock.now() : 0;
    if (due > 0) this.schedule(due);
    else await this.check();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.deps.clock.setTimeout(() => void this.check(), Math.min(ms, UPDATE_CHECK_PERIOD_MS));
  }

  private async check(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    if (this.deps.enabled()) {
      const latest = await this.ask();
      // A failed check counts as one: the next is a day later, not at every restart.
      await writePrivateFile(this.deps.stateFile, JSON.stringify({ checkedAt: this.deps.clock.now(), latest: latest ?? this.latestKnown })).catch(
        (error: unknown) => this.deps.log.debug('could not keep the update check time', { error: errorText(error) }),
      );
      this.learn(latest);
    }
    this.schedule(UPDATE_CHECK_PERIOD_MS);
  }

  private async ask(): Promise<string | null> {
    try {
      const response = await this.deps.fetch(this.deps.url, {
        method: 'GET',
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
      });
      if (response.status !== 200) throw new Error(`the registry answered ${response.status}`);
      const body = LatestSchema.safeParse(JSON.parse(await response.text()));
      if (!body.success) throw new Error('the registry answered something without a version');
      return body.data.version;
    } catch (error) {
      this.deps.log.debug('the update check did not get an answer', { error: errorText(error) });
      return null;
    }
  }

  private learn(latest: string | null): void {
    if (!latest || this.stopped) return;
    this.latestKnown = latest;
    const newer = this.available;
    if (newer && newer !== this.told && this.deps.enabled()) {
      this.told = newer;
      this.deps.onAvailable(newer);
    }
  }
}

/** "Runner Tray 0.2.0 is available (you run 0.1.0)." */
export function updateLine(appName: string, latest: string, current: string): string {
  return `${appName} ${latest} is available (you run ${current}).`;
}
