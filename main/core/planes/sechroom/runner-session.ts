import path from 'node:path';
import { errorText } from '../../../../shared/errors';
import type { TurnView } from '../../../../shared/turns';
import type { Clock, Logger } from '../../base/ports';
import { ExecutorSession, type SessionStatus, type WorkLayerPort } from './executor-session';
import type { MachineSlotPort } from './machine-slot';
import { InflightJournal } from './inflight-journal';
import { laneOf, type InstanceSettings } from '../../../../shared/sechroom-instance-settings';
import { AuthExpiredError } from './sechroom-auth';
import { SechroomOutbox } from './sechroom-outbox';
import { turnViewOf, type SessionSummary } from './turn-records';
import type { TaskWorkspacePort } from './task-workspace';
import type { AdmissionPort, RootReadyPort, SechroomTurnRunner } from './turn-runner';
import type { WorkLayerClient } from './work-layer-client';

/** What a host shows for one Sechroom profile. No secrets: ids, counts and display text. */
export interface SechroomSessionSnapshot {
  kind: 'sechroom';
  instanceKey: string;
  lane: string;
  baseUrl: string;
  status: SessionStatus;
  paused: boolean;
  summary: SessionSummary;
  /** Completions and telemetry batches still waiting in the outbox. */
  outboxPending: number;
  /** Tasks claimed and not settled yet. */
  active: TurnView[];
}

export type SechroomSessionEvent = { event: 'status'; snapshot: SechroomSessionSnapshot } | { event: 'turn'; turn: TurnView };

export interface SechroomRunnerSessionDeps {
  settings: InstanceSettings;
  client: WorkLayerPort & Pick<WorkLayerClient, 'complete' | 'telemetry' | 'baseUrl'>;
  turns: SechroomTurnRunner;
  /** This profile's own folder: the outbox and the in-flight journal live under it. */
  dataDir: string;
  clock: Clock;
  log: Logger;
  admission?: AdmissionPort;
  root?: RootReadyPort;
  workspace?: TaskWorkspacePort;
  once?: boolean;
  offerWaitMs?: number;
  machine?: MachineSlotPort;
  random?: () => number;
}

/**
 * One Sechroom profile's runner session, as a host holds it: start (the durable outbox
 * loaded, the loop running), stop (drain, deregister), pause/resume claiming, a status
 * snapshot, and every turn as a TurnView event (the same shape as a Rost unit's turn).
 */
export class SechroomRunnerSession {
  private session: ExecutorSession | null = null;
  private outbox: SechroomOutbox | null = null;
  private done: Promise<SessionSummary> | null = null;
  private status_: SessionStatus = { state: 'stopped' };
  private paused = false;
  private readonly active = new Map<string, TurnView>();
  private readonly listeners = new Set<(event: SechroomSessionEvent) => void>();
  private lastSummary: SessionSummary = { processed: 0, completed: 0, abandoned: 0 };

  constructor(private readonly deps: SechroomRunnerSessionDeps) {}

  onEvent(listener: (event: SechroomSessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once the loop runs; `finished` resolves when it ends. */
  async start(): Promise<void> {
    if (this.session) return;
    const { deps } = this;
    const outbox = new SechroomOutbox({
      dir: path.join(deps.dataDir, 'outbox'),
      client: deps.client,
      clock: deps.clock,
      log: deps.log,
      ...(deps.random ? { random: deps.random } : {}),
      onDelivered: (delivery) => this.session?.delivered(delivery),
      leaseTimeLeftMs: (leaseId) => this.session?.leaseTimeLeftMs(leaseId) ?? null,
      onAuthExpired: (error) =>
        this.setStatus({ state: 'auth_expired', message: error.message, remedy: error instanceof AuthExpiredError ? error.remedy : 'sign_in' }),
      onChange: () => this.emitStatus(),
    });
    await outbox.load();
    const session = new ExecutorSession({
      settings: deps.settings,
      client: deps.client,
      turns: deps.turns,
      outbox,
      clock: deps.clock,
      log: deps.log,
      journal: new InflightJournal(path.join(deps.dataDir, 'inflight')),
      ...(deps.admission ? { admission: deps.admission } : {}),
      ...(deps.root ? { root: deps.root } : {}),
      ...(deps.workspace ? { workspace: deps.workspace } : {}),
      ...(deps.once ? { once: true } : {}),
      ...(deps.offerWaitMs ? { offerWaitMs: deps.offerWaitMs } : {}),
      ...(deps.machine ? { machine: deps.machine } : {}),
      ...(deps.random ? { random: deps.random } : {}),
      onTurn: (record) => this.turnChanged(turnViewOf(record)),
      onState: (state) => this.setStatus(state),
    });
    this.outbox = outbox;
    this.session = session;
    if (this.paused) session.pause();
    this.done = session.run().then(
      (summary) => this.ended(summary),
      (error: unknown) => {
        deps.log.error(`the Sechroom session ended on an error: ${errorText(error)}`);
        return this.ended(this.lastSummary);
      },
    );
  }

  /** Resolves when the loop has ended (after stop, `--once`, or a refused sign-in). */
  get finished(): Promise<SessionSummary> {
    return this.done ?? Promise.resolve(this.lastSummary);
  }

  async stop(): Promise<SessionSummary> {
    if (!this.session) return this.lastSummary;
    await this.session.stop();
    return this.finished;
  }

  pause(): void {
    this.paused = true;
    this.session?.pause();
    this.emitStatus();
  }

  resume(): void {
    this.paused = false;
    this.session?.resume();
    this.emitStatus();
  }

  /** Interrupts the task of a TurnView id (`sechroom:<leaseId>`) if it runs here now. */
  interrupt(turnId: string): boolean {
    return turnId.startsWith('sechroom:') && (this.session?.interrupt(turnId.slice('sechroom:'.length)) ?? false);
  }

  status(): SechroomSessionSnapshot {
    const { settings } = this.deps;
    return {
      kind: 'sechroom',
      instanceKey: settings.instanceKey,
      lane: laneOf(settings),
      baseUrl: this.deps.client.baseUrl,
      status: this.status_,
      paused: this.paused,
      summary: this.session ? this.session.counts : { ...this.lastSummary },
      outboxPending: this.outbox?.pending ?? 0,
      active: [...this.active.values()],
    };
  }

  private ended(summary: SessionSummary): SessionSummary {
    this.lastSummary = summary;
    this.session = null;
    this.outbox = null;
    if (this.status_.state !== 'auth_expired') this.setStatus({ state: 'stopped' });
    return summary;
  }

  private turnChanged(turn: TurnView): void {
    if (turn.endedAt === null) this.active.set(turn.id, turn);
    else this.active.delete(turn.id);
    this.emit({ event: 'turn', turn });
  }

  private setStatus(status: SessionStatus): void {
    // A refused bearer ends the executor, whose shutdown then says "stopped": the refusal is what the operator must see.
    if (status.state === 'stopped' && this.status_.state === 'auth_expired') return;
    this.status_ = status;
    this.emitStatus();
  }

  private emitStatus(): void {
    this.emit({ event: 'status', snapshot: this.status() });
  }

  private emit(event: SechroomSessionEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.deps.log.warn(`a Sechroom session listener threw: ${errorText(error)}`);
      }
    }
  }
}
