import type { TurnsPage, TurnsSnapshot, TurnsUpdate, TurnView } from '../../../shared/turns';
import type { TranscriptLine } from '../../../shared/transcript';
import { leanTurn } from './lean-turn';
import type { TurnTranscripts } from './turn-transcripts';
import type { TurnHistoryStore } from './turn-history-store';

/**
 * Active turns and recent history. Changes are collected and handed out as one
 * `turns:update` per event-hub window, so output streaming from eight turns at once
 * costs the window one render per batch.
 */
export class TurnRegistry {
  private readonly active = new Map<string, TurnView>();
  private dirty = new Set<string>();
  private removed = new Set<string>();
  private finished: TurnView[] = [];
  private updated = new Map<string, TurnView>();

  constructor(
    private readonly notify: () => void,
    /** The finished turns, on disk with their list rows in memory. */
    private readonly history: TurnHistoryStore,
    /** The running turns' live transcripts (none: lines are dropped). */
    readonly transcripts: TurnTranscripts | null = null,
  ) {}

  /** Resolves once the history's rows are loaded (changes made before then are kept). */
  historyLoaded(): Promise<void> {
    return this.history.load();
  }

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

  /** A running turn's transcript waiting for the disk: see TurnTranscripts.backlog. */
  transcriptBacklog(id: string): Promise<void> | null {
    return this.transcripts?.backlog(id) ?? null;
  }

  /** A line of a running turn's transcript. */
  transcript(id: string, line: TranscriptLine): void {
    if (this.active.has(id)) this.transcripts?.add(id, line);
  }

  finish(id: string, patch: Partial<TurnView>): TurnView | undefined {
    const turn = this.active.get(id);
    if (!turn) return undefined;
    void this.transcripts?.finish(id);
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

  /**
   * Changes a finished turn's row (e.g. its result's delivery); false if it is not in the
   * history. Before the history is loaded a turn that is not running may be in it: the
   * change waits for it (true). `orAdd` is put on top when the row turns out not to be kept.
   */
  patchHistory(id: string, patch: Partial<TurnView>, orAdd?: TurnView): boolean {
    const kept = this.history.has(id) || (!this.history.loaded && !this.active.has(id));
    if (!kept) {
      if (orAdd) this.addFinished(orAdd);
      return Boolean(orAdd);
    }
    void this.history.update(id, patch).then((next) => {
      if (!next) {
        if (orAdd && !this.history.has(id)) this.addFinished(orAdd);
        return;
      }
      // Still in this batch's `finished`: the newer copy goes out there; else as an in-place update.
      const pendingFinish = this.finished.findIndex((t) => t.id === id);
      if (pendingFinish >= 0) this.finished[pendingFinish] = next;
      else this.updated.set(id, next);
      this.notify();
    });
    return true;
  }

  private record(done: TurnView): void {
    this.history.add(done);
    this.finished = [...this.finished.filter((t) => t.id !== done.id), done];
    this.updated.delete(done.id);
    this.notify();
  }

  /** The running turns and `limit` history rows from `offset` (newest first), without tails or summaries. */
  page(offset: number, limit: number): TurnsPage {
    return {
      active: this.activeTurns(),
      history: this.history.rows(offset, limit),
      offset,
      total: this.history.total,
    };
  }

  /** One turn's whole record, running or finished (read from disk); undefined when it is not kept. */
  async detail(id: string): Promise<TurnView | undefined> {
    return this.active.get(id) ?? (await this.history.read(id));
  }

  /** Every turn's list fields, for the core's own readers (request views); the window asks for pages. */
  overview(): TurnsSnapshot {
    return { active: this.activeTurns(), history: this.history.allRows() };
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
