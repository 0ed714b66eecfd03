import { errorText } from '../../../../shared/errors';
import type { Delivery } from '../../../../shared/turns';
import type { ClaimedWork } from './connector';
import path from 'node:path';
import { ResultOutbox, type DeliveryEvent } from './outbox';
import { reportInterrupted, stopOrphans } from './recovery';
import { RunningJournal, type RunningRecord } from './running-journal';
import { failedView } from './unit-result';
import { UnitRun } from './unit-run';
import type { UnitLauncherDeps } from './unit-launcher-deps';
import { RunningNotes, startingView, unitRunDeps } from './unit-launch-start';
import { deliveryOf, learnFromOutcome } from './unit-launch-outcome';

/**
 * Runs claimed units of one profile: the turn row, the running journal, the result into
 * the durable outbox before anything else, the lease kept until the result is delivered.
 */
export class UnitLauncher {
  private readonly outbox: ResultOutbox;
  private readonly journal: RunningJournal;
  private readonly runs = new Map<string, UnitRun>();
  /** Finished units whose lease is kept until their result is delivered, by idempotency key. */
  private readonly awaitingDelivery = new Map<string, UnitRun>();
  /** The latest delivery state per key, for a turn row that is not finished yet when it comes. */
  private readonly deliveries = new Map<string, Delivery>();
  private readonly lostBeforeReport = new Map<string, string>();
  private readonly settled = new Set<() => void>();
  /** Units between their claim and their end (a few of them not in `runs` yet). */
  private pending = 0;
  /** What the running journal held at start (a crash's units), until they are reported. */
  private leftovers: RunningRecord[] = [];

  constructor(private readonly deps: UnitLauncherDeps) {
    this.journal = new RunningJournal(path.join(deps.dir, 'running'));
    this.outbox = new ResultOutbox({
      dir: path.join(deps.dir, 'outbox'),
      clock: deps.clock,
      log: deps.log.child('outbox'),
      ...(deps.random ? { random: deps.random } : {}),
      target: () => deps.host.current(),
      onRevoked: () => deps.host.markRevoked(),
      onChange: (pending) => deps.onUndelivered(pending),
      onDelivery: (event) => this.onDelivery(event),
      beforeReport: (key) => this.beforeReport(key),
    });
  }

  get activeCount(): number {
    return this.runs.size;
  }

  /** Results in the outbox the control plane does not have yet. */
  get undelivered(): number {
    return this.outbox.pending;
  }

  /**
   * First step of a start: runtimes a crashed host left running are stopped (a runtime may
   * outlive its host), before the host sweeps their turn folders (their MCP config among them).
   */
  async stopLeftovers(): Promise<void> {
    this.leftovers = await this.journal.leftovers();
    await stopOrphans(this.deps, this.leftovers);
  }

  /** Then: the units the crash interrupted are reported failed, once, and delivery starts. */
  async start(): Promise<void> {
    const { clock, log, host, registry } = this.deps;
    await this.outbox.load();
    await reportInterrupted({ clock, log, profile: host.profile, journal: this.journal, outbox: this.outbox, registry }, this.leftovers);
    this.leftovers = [];
    this.outbox.start();
  }

  /** After a good heartbeat: results waiting on a backoff are tried again now. */
  resumeDelivery(): void {
    this.outbox.resume();
  }

  /** Tries to deliver every queued result now. */
  flush(): Promise<void> {
    return this.outbox.flush();
  }

  /** Quit: the running turns get up to `limitMs`, then are canceled; their results are queued, then a delivery is tried. */
  async drain(limitMs: number): Promise<{ canceled: number }> {
    let canceled = 0;
    if (this.runs.size > 0) {
      await new Promise<void>((resolve) => {
        const t = this.deps.clock.setTimeout(resolve, limitMs);
        void this.whenIdle().then(() => {
          this.deps.clock.clearTimeout(t);
          resolve();
        });
      });
      canceled = this.cancelAll('the runner is quitting');
      await this.whenIdle();
    }
    await this.outbox.flush();
    return { canceled };
  }

  has(id: string): boolean {
    return this.runs.has(id);
  }

  /** Stops delivering; leases kept for undelivered results end with the process. */
  stop(): void {
    this.outbox.stop();
    for (const run of this.awaitingDelivery.values()) run.releaseLease();
    this.awaitingDelivery.clear();
  }

  cancel(id: string, reason = 'canceled by the operator'): boolean {
    const run = this.runs.get(id);
    if (!run) return false;
    run.cancel(reason);
    return true;
  }

  /** A unit that runs, or whose result is on its way with its lease kept. */
  holds(id: string): boolean {
    return this.held(id) !== undefined;
  }

  private held(id: string): UnitRun | undefined {
    return this.runs.get(id) ?? [...this.awaitingDelivery.values()].find((r) => r.unitId === id);
  }

  /** [v1] A cancel notice from a held claim: the same path as the lease heartbeat's `cancel_requested`. */
  planeCancel(id: string, reason: string | null): boolean {
    const run = this.held(id);
    if (!run) return false;
    run.planeCancel(reason, 'cancel notice');
    return true;
  }

  cancelAll(reason: string): number {
    for (const run of this.runs.values()) run.cancel(reason);
    return this.runs.size;
  }

  /** Resolves once no unit of this profile runs or is being launched. */
  whenIdle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (this.pending > 0) return;
        this.settled.delete(check);
        resolve();
      };
      this.settled.add(check);
    });
  }

  /** A delivery try starts: what the lease said so far decides whether this result is late. */
  beforeReport(key: string): void {
    const lost = this.awaitingDelivery.get(key)?.leaseLost ?? null;
    if (lost !== null) this.lostBeforeReport.set(key, lost);
  }

  /** The outbox's word on a result: the turn row says it, and a settled result's lease ends. */
  onDelivery(event: DeliveryEvent): void {
    const run = this.awaitingDelivery.get(event.key);
    // Only a loss seen before the try was sent makes it late (a cancel answered after the
    // control plane took our result is just the unit being over).
    const late = this.lostBeforeReport.get(event.key) ?? null;
    const delivery = deliveryOf(event, late);
    if (event.state !== 'waiting') {
      run?.releaseLease();
      this.awaitingDelivery.delete(event.key);
      this.lostBeforeReport.delete(event.key);
    }
    // The delivery can beat the row into the history (the unit is still being finished): keep it for launch().
    if (!this.deps.registry.patchHistory(event.unitId, { delivery }) && this.deps.registry.get(event.unitId)) this.deliveries.set(event.key, delivery);
  }

  /** Runs one claimed unit to its end; never rejects. `refused`: why the unit was refused (the seed's `--once` exits 1 then). */
  /**
   * Runs a claimed unit to its end. `slotFree` is called once the runtime is done and its
   * result is on its way (in the outbox, its POST sent): the next claim need not wait for
   * the durable write and the journal, which go on here.
   */
  async launch(unit: ClaimedWork, slotFree: () => void = () => {}): Promise<{ refused: string | null }> {
    const host = this.deps.host;
    const target = host.current();
    const controlPlaneUrl = host.controlPlaneUrl();
    if (!target || !controlPlaneUrl) return { refused: null };
    const { connector, credentials } = target;
    this.pending++;
    const now = new Date(this.deps.clock.now()).toISOString();
    const view = startingView(unit, host.profile, now);
    this.deps.registry.add(view);
    const notes = new RunningNotes(this.journal, this.deps.log, unit, credentials, view);
    let releaseToken: (() => void) | undefined;
    let refused: string | null = null;
    let run: UnitRun | null = null;
    try {
      const capabilities = await this.deps.capabilities.get();
      run = new UnitRun(unit, unitRunDeps(this.deps, unit, { connector, credentials, controlPlaneUrl }, capabilities, notes));
      this.runs.set(unit.id, run);
      host.activeChanged(this.runs.size);
      releaseToken = unit.mcp ? this.deps.registerTurnSecret?.(unit.mcp.token) : undefined;
      const outcome = await run.run();
      refused = outcome?.refused ?? null;
      let delivery: Delivery | null = null;
      if (outcome?.result) {
        const key = outcome.result.idempotency_key;
        this.awaitingDelivery.set(key, run);
        delivery = { state: 'sending', attempts: 0, since: new Date(this.deps.clock.now()).toISOString(), reason: null };
        const queued = this.outbox.enqueue({ runnerId: credentials.runnerId, unit: { id: unit.id, kind: unit.kind }, result: outcome.result });
        // What the turn says about its runtime (the breaker) is known before the next claim.
        learnFromOutcome(this.deps, { result: outcome.result, view: outcome.view }, Date.parse(now));
        this.turnDone(unit.id, slotFree);
        await queued;
        this.deps.log.info('unit finished', { unit: unit.id, status: outcome.result.status });
      } else {
        run.releaseLease();
        this.turnDone(unit.id, slotFree);
      }
      // A failed turn may have failed on the disk (its folder could not be made): the storage health looks.
      if (outcome?.result?.status === 'failed') host.writeFailed?.(null);
      // The turn folder's removal and the resume cache's write went on beside the result.
      await run.settled();
      // A note of the process still being written must land before the note is removed.
      await notes.written();
      await this.journal.clear(unit.id);
      delivery = this.deliveries.get(run.key) ?? delivery;
      this.deliveries.delete(run.key);
      this.deps.registry.finish(unit.id, { ...(outcome?.view ?? failedView('revoked')), endedAt: new Date(this.deps.clock.now()).toISOString(), delivery });
    } catch (error) {
      this.notRecorded(unit, run, error);
    } finally {
      releaseToken?.();
      this.pending--;
      this.turnDone(unit.id, slotFree);
      for (const check of [...this.settled]) check();
    }
    return { refused };
  }

  /**
   * Only the disk can fail in a launch: the journal keeps the unit for the restart path, and claims stop
   * until the folders take writes again. A unit whose note could not be written was never started.
   */
  private notRecorded(unit: ClaimedWork, run: UnitRun | null, error: unknown): void {
    run?.releaseLease();
    if (run) this.awaitingDelivery.delete(run.key);
    this.deps.host.writeFailed?.(error);
    const started = run?.started ?? false;
    const message = errorText(error);
    this.deps.log.error(started ? 'could not record the result of a unit' : 'could not note a unit before its start; it was not started', {
      unit: unit.id,
      error: message,
    });
    const reason = started ? 'the result could not be saved' : `not started: the running journal could not be written (${message})`;
    this.deps.registry.finish(unit.id, { ...failedView(reason), endedAt: new Date(this.deps.clock.now()).toISOString() });
  }

  /** The unit's runtime is done: it no longer counts as running, and its slot frees (once). */
  private turnDone(unitId: string, slotFree: () => void): void {
    if (!this.runs.delete(unitId)) return;
    this.deps.host.activeChanged(this.runs.size);
    slotFree();
  }
}
