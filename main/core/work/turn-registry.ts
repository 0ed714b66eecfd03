import { HISTORY_LIMIT, toTurnRow, type TurnsPage, type TurnsSnapshot, type TurnsUpdate, type TurnView } from '../../../shared/turns';
import { leanTurn } from './lean-turn';

/**
 * Active turns and recent history. Changes are collected and handed out as one
 * `turns:update` per event-hub window, so output streaming from eight turns at once
 * costs the window one render per batch.
 */
export class TurnRegistry {
  private readonly active = new Map<string, TurnView>();
  private history: TurnView[] = [];
  private dirty = new Set<string>();
  private removed = new Set<string>();
  private finished: TurnView[] = [];
  private updated = new Map<string, TurnView>();

  constructor(
    private readonly notify: () => void,
    private readonly historyLimit = HISTORY_LIMIT,
    /** Called with the whole history after each change (the data folder keeps it). */
    private readonly onHistory: (history: readonly TurnView[]) => void = () => {},
  ) {}

  get activeCount(): number {
    return this.active.size;
  }

  get(id: string): TurnView | undefined {
    return this.active.get(id);
  }

  activeTurns(): TurnView[] {
    return [...this.active.values()];
  }

  add(turn: TurnView): void {
    this.active.set(turn.id, turn);
    this.touch(turn.id);
  }

  patch(id: string, patch: Partial<TurnView>): void {
    const turn = this.active.get(id);
    if (!turn) return;
    this.active.set(id, { ...turn, ...patch });
    this.touch(id);
  }

  finish(id: string, patch: Partial<TurnView>): TurnView | undefined {
    const turn = this.active.get(id);
    if (!turn) return undefined;
    const done = leanTurn({ ...turn, ...patch });
    this.active.delete(id);
    this.dirty.delete(id);
    this.removed.add(id);
    this.record(done);
    return done;
  }

  /** A turn that never ran here, already over (a unit reported after a restart). */
  addFinished(turn: TurnView): void {
    this.record(leanTurn(turn));
  }

  /** Changes a finished turn's row (e.g. its result's delivery); false if it is not in the history. */
  patchHistory(id: string, patch: Partial<TurnView>): boolean {
    const index = this.history.findIndex((t) => t.id === id);
    if (index < 0) return false;
    const next = { ...this.history[index]!, ...patch };
    this.history[index] = next;
    // Still in this batch's `finished`: the newer copy goes out there; else as an in-place update.
    const pendingFinish = this.finished.findIndex((t) => t.id === id);
    if (pendingFinish >= 0) this.finished[pendingFinish] = next;
    else this.updated.set(id, next);
    this.notify();
    this.onHistory(this.history);
    return true;
  }

  private record(done: TurnView): void {
    this.history = [done, ...this.history.filter((t) => t.id !== done.id)];
    if (this.history.length > this.historyLimit) this.history.length = this.historyLimit;
    this.finished.push(done);
    this.updated.delete(done.id);
    this.notify();
    this.onHistory(this.history);
  }

  /** Seeds history (e.g. from a previous run, or in benchmarks). */
  restoreHistory(turns: TurnView[]): void {
    this.history = turns.slice(0, this.historyLimit).map(leanTurn);
  }

  /** The running turns and `limit` history rows from `offset` (newest first), without tails or summaries. */
  page(offset: number, limit: number): TurnsPage {
    return {
      active: this.activeTurns(),
      history: this.history.slice(offset, offset + limit).map(toTurnRow),
      offset,
      total: this.history.length,
    };
  }

  /** One turn's whole record, running or finished; undefined when it is not kept. */
  detail(id: string): TurnView | undefined {
    return this.active.get(id) ?? this.history.find((t) => t.id === id);
  }

  /** Everything, for the core's own readers (request views); the window asks for pages. */
  snapshot(): TurnsSnapshot {
    return { active: this.activeTurns(), history: this.history };
  }

  /** The changes since the last call, or null when nothing changed. */
  drain(): TurnsUpdate | null {
    if (this.dirty.size === 0 && this.removed.size === 0 && this.finished.length === 0 && this.updated.size === 0) return null;
    const update: TurnsUpdate = {
      active: [...this.dirty].map((id) => this.active.get(id)).filter((t): t is TurnView => t !== undefined),
      removed: [...this.removed],
      finished: this.finished,
      ...(this.updated.size > 0 ? { updated: [...this.updated.values()] } : {}),
    };
    this.dirty = new Set();
    this.removed = new Set();
    this.finished = [];
    this.updated = new Map();
    return update;
  }

  private touch(id: string): void {
    this.removed.delete(id);
    this.dirty.add(id);
    this.notify();
  }
}
