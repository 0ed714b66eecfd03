import { spawn, type ChildProcess } from 'node:child_process';
import type { Clock, Logger, TimerHandle } from '../base/ports';
import { errorText } from '../../../shared/errors';
import type { EgressProxy } from './isolation/egress/proxy';
import type { IsolatedCommand } from './isolation/spec';
import type { PreparedTurn } from './isolation';
import type { TurnDir } from './turn-files';
import { referenced } from './warm-launcher';

/**
 * A sandbox started ahead of its turn, while a slot is free: a turn folder of its own with
 * the runtime's private home in it, the egress proxy listening on that folder's socket,
 * and bubblewrap already running the egress bridge, which waits on fd 3 for the command
 * (bridge-source.ts, `handoff`). A claimed unit then writes its files and sends its
 * command line and environment over fd 3 instead of paying bubblewrap's and the bridge's
 * Node start.
 *
 * Isolation is the same by construction: a claimed turn computes its bubblewrap command
 * line and allowlist exactly as a turn with no spare does, and uses the spare only when
 * both are identical to the ones the spare was started with (`sandboxKey`); otherwise the
 * spare is discarded and the turn starts its own. The spare holds nothing of a turn until
 * it is handed one (no prompt, no MCP token, no environment of a turn: bubblewrap runs
 * with the script node's variables only), serves exactly one turn and is then gone with
 * that turn's folder. It keeps the host alive by nothing (unreferenced), dies with the host
 * (bubblewrap --die-with-parent), and `stop`/`drop` kill it (quit, pause).
 */
export interface SpareSandbox {
  /** What the spare was made for (SpareShape); a turn of another shape does not take it. */
  shape: string;
  turn: TurnDir;
  prepared: PreparedTurn;
  /** bubblewrap's command line and the allowlist it was started with. */
  key: string;
  child: ChildProcess;
  proxy: EgressProxy;
  bornAt: number;
  /** Set by the turn that handed it its command (its process and proxy are then that turn's). */
  used: boolean;
}

/** The sandbox's identity: bubblewrap's whole command line (every bind and namespace) and what its proxy lets through. */
export function sandboxKey(isolated: IsolatedCommand): string {
  return JSON.stringify([isolated.command, isolated.args, isolated.cwd, isolated.egress?.allow ?? null]);
}

/** bubblewrap with a handoff bridge, waiting for its command on fd 3 (a turn's, or a spare's). */
export function startSandbox(isolated: IsolatedCommand): ChildProcess {
  const child = spawn(isolated.command, isolated.args, {
    cwd: isolated.cwd,
    env: isolated.env,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    // POSIX: it leads a new process group, so the whole tree can be signalled.
    detached: true,
    windowsHide: true,
  });
  for (const stream of child.stdio) stream?.on('error', () => undefined);
  return child;
}

const SPARE_MAX_AGE_MS = 10 * 60_000;

export interface SpareSandboxesDeps {
  clock: Clock;
  log: Logger;
  /** How many spares are kept at once (one per slot that may claim next). */
  size: number;
  /** A spare older than this is not used (its sign-in copy and broker tokens were made at its start): discarded at take. */
  maxAgeMs?: number;
  /** Removes a spare's turn folder (and revokes what was issued for it). */
  removeTurn(turn: TurnDir): Promise<void>;
}

export class SpareSandboxes {
  private readonly spares: SpareSandbox[] = [];
  private filling = 0;
  private stopped = false;
  private readonly pending = new Set<Promise<void>>();
  /** Each waiting spare ends by itself at its age limit (a paused or idle runner keeps none longer). */
  private readonly expiries = new Map<SpareSandbox, TimerHandle>();

  constructor(private readonly deps: SpareSandboxesDeps) {}

  /** A live, fresh spare of this shape (then the caller's: its process is referenced again), or null. */
  take(shape: string | null): SpareSandbox | null {
    const index = this.spares.findIndex((s) => s.shape === shape);
    if (index < 0) return null;
    const [spare] = this.spares.splice(index, 1);
    if (!spare) return null;
    this.unexpire(spare);
    const alive = spare.child.pid !== undefined && spare.child.exitCode === null && spare.child.signalCode === null;
    if (!alive || this.deps.clock.now() - spare.bornAt > (this.deps.maxAgeMs ?? SPARE_MAX_AGE_MS)) {
      this.track(this.dispose(spare));
      return null;
    }
    referenced(spare.child, true);
    return spare;
  }

  /** Starts a spare of this shape in the background unless the pool is full (call it off the turn's critical path). */
  fill(shape: string, make: () => Promise<Omit<SpareSandbox, 'used'> | null>): void {
    if (this.stopped) return;
    // One shape at a time: a spare of another shape is what the last turns did not need.
    for (const other of this.spares.filter((s) => s.shape !== shape)) this.evict(other);
    if (this.spares.length + this.filling >= this.deps.size) return;
    this.filling++;
    const made = make()
      .then((spare) => {
        if (!spare) return;
        const ready: SpareSandbox = { ...spare, used: false };
        referenced(ready.child, false);
        ready.child.once('exit', () => this.evict(ready));
        // Stopped while it started: ended within this promise, so a stop that waits on it leaves no folder behind.
        if (this.stopped) return this.dispose(ready);
        this.spares.push(ready);
        this.expiries.set(
          ready,
          this.deps.clock.setTimeout(() => this.evict(ready), this.deps.maxAgeMs ?? SPARE_MAX_AGE_MS),
        );
        return undefined;
      })
      .catch((error: unknown) => this.deps.log.warn('could not start a sandbox ahead of the next turn', { error: errorText(error) }))
      .finally(() => this.filling--);
    this.track(made);
  }

  /** A taken spare after its turn: what the turn did not use is ended (its folder goes with the turn). */
  async release(spare: SpareSandbox): Promise<void> {
    if (!spare.used) await this.kill(spare);
  }

  /** At pause: every spare is ended (new ones come with the next turn). */
  async drop(): Promise<void> {
    await Promise.all(this.spares.splice(0).map((spare) => (this.unexpire(spare), this.dispose(spare))));
  }

  /** At quit: every spare is ended and none is started again. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.drop();
    await Promise.all([...this.pending]);
  }

  private evict(spare: SpareSandbox): void {
    const index = this.spares.indexOf(spare);
    if (index < 0) return;
    this.spares.splice(index, 1);
    this.unexpire(spare);
    this.track(this.dispose(spare));
  }

  private unexpire(spare: SpareSandbox): void {
    const timer = this.expiries.get(spare);
    if (timer !== undefined) this.deps.clock.clearTimeout(timer);
    this.expiries.delete(spare);
  }

  private async dispose(spare: SpareSandbox): Promise<void> {
    await this.kill(spare);
    await this.deps
      .removeTurn(spare.turn)
      .catch((error: unknown) => this.deps.log.warn('could not remove a spare sandbox folder', { error: errorText(error) }));
  }

  private async kill(spare: SpareSandbox): Promise<void> {
    const { child } = spare;
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      try {
        process.kill(-child.pid, 'SIGKILL');
        await gone;
      } catch {
        // already gone
      }
    }
    for (const stream of child.stdio) stream?.destroy();
    await spare.proxy.close();
  }

  private track(work: Promise<void>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }
}
