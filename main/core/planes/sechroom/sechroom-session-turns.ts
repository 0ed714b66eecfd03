import type { TurnView } from '../../../../shared/turns';
import type { Clock } from '../../base/ports';
import type { TurnRegistry } from '../../work/turn-registry';

/**
 * A Sechroom profile's tasks as rows of the host's Turns registry (under the profile's id),
 * the ones claimed and not ended yet, and who waits for them all to end (a quit's drain).
 */
export class SechroomTurnRows {
  private readonly ids = new Set<string>();
  private readonly idleWaiters = new Set<() => void>();

  constructor(private readonly deps: { profile: string; registry: TurnRegistry; clock: Clock }) {}

  /** The ids of the tasks claimed here and not ended yet. */
  get running(): ReadonlySet<string> {
    return this.ids;
  }

  whenIdle(): Promise<void> {
    if (this.ids.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.add(resolve));
  }

  /** Up to `limitMs` for the tasks in flight to end (a quit's drain). */
  async idleWithin(limitMs: number): Promise<void> {
    if (this.ids.size > 0 && limitMs > 0) {
      let timer: ReturnType<Clock['setTimeout']> | null = null;
      await Promise.race([this.whenIdle(), new Promise<void>((resolve) => (timer = this.deps.clock.setTimeout(resolve, limitMs)))]);
      if (timer !== null) this.deps.clock.clearTimeout(timer);
    }
  }

  /** A task's turn changed: its row is added, patched or finished. */
  changed(turn: TurnView): void {
    const view: TurnView = { ...turn, profile: this.deps.profile };
    const { registry } = this.deps;
    if (view.endedAt === null) {
      this.ids.add(view.id);
      if (registry.get(view.id)) registry.patch(view.id, view);
      else registry.add(view);
      return;
    }
    this.ids.delete(view.id);
    if (registry.get(view.id)) registry.finish(view.id, view);
    else registry.patchHistory(view.id, view, view);
    if (this.ids.size === 0) {
      const waiters = [...this.idleWaiters];
      this.idleWaiters.clear();
      waiters.forEach((done) => done());
    }
  }
}
