import { errorText } from '../../../../shared/errors';
import type { TurnView } from '../../../../shared/turns';
import type { Clock } from '../../base/ports';
import type { FetchLike } from '../../connectors/http-json';
import type { RunOneOutcome } from '../../sessions/session';
import { SechroomRunnerSession, type SechroomSessionSnapshot } from './runner-session';
import type { SechroomTokenSource } from './sechroom-auth';
import type { SechroomProfileConfig } from './sechroom-config';
import type { SechroomPlumbing, SechroomSessionDeps } from './sechroom-session-deps';
import { WorkLayerClient } from './work-layer-client';

/** What the profile's session hears of its executor: a status that went live, and any change to show. */
export interface SechroomExecutorEvents {
  live(): void;
  changed(): void;
}

/**
 * The executor a Sechroom profile's session runs while it is started and signed in: its
 * start/open wiring (the Work Layer client for the profile's settings and credential, the
 * plumbing the host makes for them, the runner session's loop), its close (the loop
 * stopped, the codex app-server let go), its last status snapshot, and the profile's tasks
 * as rows of the Turns registry (with who waits for them all to end).
 */
export class SechroomSessionExecutor {
  private runner: SechroomRunnerSession | null = null;
  private plumbing: SechroomPlumbing | null = null;
  private last: SechroomSessionSnapshot | null = null;
  private readonly turnIds = new Set<string>();
  private readonly idleWaiters = new Set<() => void>();

  constructor(
    private readonly deps: SechroomSessionDeps,
    private readonly events: SechroomExecutorEvents,
  ) {}

  /** The runner session while one is open. */
  get current(): SechroomRunnerSession | null {
    return this.runner;
  }

  /** The runner session's last status snapshot (kept after it closed). */
  get snapshot(): SechroomSessionSnapshot | null {
    return this.last;
  }

  get instanceId(): string | null {
    const status = this.last?.status;
    return status && 'instanceId' in status ? status.instanceId : null;
  }

  /** The ids of the tasks claimed here and not ended yet. */
  get turns(): ReadonlySet<string> {
    return this.turnIds;
  }

  whenIdle(): Promise<void> {
    if (this.turnIds.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.add(resolve));
  }

  /** Up to `limitMs` for the tasks in flight to end (a quit's drain). */
  async idleWithin(limitMs: number): Promise<void> {
    if (this.turnIds.size > 0 && limitMs > 0) {
      let timer: ReturnType<Clock['setTimeout']> | null = null;
      await Promise.race([this.whenIdle(), new Promise<void>((resolve) => (timer = this.deps.clock.setTimeout(resolve, limitMs)))]);
      if (timer !== null) this.deps.clock.clearTimeout(timer);
    }
  }

  /** Every task here interrupted (nothing completed, leases left to expire); how many there were. */
  interruptAll(): number {
    const running = [...this.turnIds];
    for (const id of running) this.runner?.interrupt(id);
    return running.length;
  }

  /** `--once`: the open runner session's one task run to its end, and what came of it. */
  async ranOnce(): Promise<RunOneOutcome> {
    const runner = this.runner!;
    const summary = await runner.finished;
    const status = this.last?.status;
    if (status?.state === 'auth_expired') return { claimed: summary.processed > 0, error: `auth expired: ${status.message}` };
    const pending = this.last?.outboxPending ?? 0;
    return {
      claimed: summary.processed > 0,
      error: summary.abandoned > 0 ? 'the task was abandoned' : pending > 0 ? 'the completion could not be delivered yet (it stays queued)' : null,
    };
  }

  async open(config: SechroomProfileConfig, tokens: SechroomTokenSource, once: boolean, paused: boolean): Promise<void> {
    this.plumbing = this.deps.plumbing(config);
    const runner = new SechroomRunnerSession({
      settings: config.instance,
      client: new WorkLayerClient({ baseUrl: config.baseUrl, tenant: config.tenant, tokens, ...this.fetchOption(), knownSecrets: this.deps.knownSecrets }),
      // The turns, and the workspace, root, admission and machine ports the host made for this profile.
      ...this.plumbing,
      dataDir: this.deps.dir,
      clock: this.deps.clock,
      log: this.deps.log,
      ...(this.deps.random ? { random: this.deps.random } : {}),
      ...(once ? { once: true } : {}),
      ...(this.deps.offerWaitMs ? { offerWaitMs: this.deps.offerWaitMs } : {}),
    });
    runner.onEvent((event) => {
      if (event.event === 'turn') this.turnChanged(event.turn);
      else {
        const wasLive = this.last?.status.state === 'live';
        this.last = event.snapshot;
        if (event.snapshot.status.state === 'live' && !wasLive) this.events.live();
        this.changed();
      }
    });
    this.runner = runner;
    if (paused) runner.pause();
    await runner.start();
  }

  async close(): Promise<void> {
    const runner = this.runner;
    const plumbing = this.plumbing;
    this.runner = null;
    this.plumbing = null;
    if (runner) await runner.stop();
    await plumbing?.turns.stop?.().catch((error: unknown) => this.deps.log.warn(`could not stop the codex app-server: ${errorText(error)}`));
  }

  private fetchOption(): { fetch?: FetchLike } {
    return this.deps.fetch ? { fetch: this.deps.fetch } : {};
  }

  private turnChanged(turn: TurnView): void {
    const view: TurnView = { ...turn, profile: this.deps.profile.id };
    const { registry } = this.deps;
    if (view.endedAt === null) {
      this.turnIds.add(view.id);
      if (registry.get(view.id)) registry.patch(view.id, view);
      else registry.add(view);
    } else {
      this.turnIds.delete(view.id);
      if (registry.get(view.id)) registry.finish(view.id, view);
      else registry.patchHistory(view.id, view, view);
      if (this.turnIds.size === 0) {
        const waiters = [...this.idleWaiters];
        this.idleWaiters.clear();
        waiters.forEach((done) => done());
      }
    }
    this.changed();
  }

  private changed(): void {
    this.events.changed();
  }
}
