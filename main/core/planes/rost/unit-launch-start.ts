/**
 * The start of a launched unit: its turn row as it starts, its note in the running journal (written once
 * the runtime is known, then again with the process's pid and start time so a restart can stop that very
 * process), and the run's deps built from the launcher's kit and the profile's current identity.
 */
import { errorText } from '../../../../shared/errors';
import type { TurnView } from '../../../../shared/turns';
import type { ClaimedWork, RunnerConnector, RunnerCredentials } from './connector';
import { processStartToken } from '../../exec/process-start';
import type { Logger } from '../../base/ports';
import type { Capabilities } from '../../runner/capabilities';
import type { RunningJournal, RunningRecord } from './running-journal';
import type { UnitRunDeps } from './unit-run-deps';
import type { UnitLauncherDeps } from './unit-launcher-deps';

/** The turn row of a unit that starts now. */
export function startingView(unit: ClaimedWork, profile: string, now: string): TurnView {
  return {
    id: unit.id,
    profile,
    kind: unit.kind,
    runtime: null,
    seat: unit.seat ? { id: unit.seat.id, name: unit.seat.name ?? null } : null,
    buildRequestId: unit.build_request_id ?? null,
    startedAt: now,
    endedAt: null,
    phase: 'starting',
    pid: null,
    tokens: null,
    costUsd: null,
    outputTail: '',
    summary: null,
    lease: null,
    reason: null,
  };
}

/** A unit's note in the running journal, kept up to date as its runtime and process become known. */
export class RunningNotes {
  private spawnNoted: Promise<void> = Promise.resolve();
  // Settles once the first note is written (or failed): the note of the process goes after it.
  private firstNoted: () => void = () => undefined;
  private readonly recorded = new Promise<void>((resolve) => (this.firstNoted = resolve));
  private note: RunningRecord;

  constructor(
    private readonly journal: RunningJournal,
    private readonly log: Logger,
    unit: ClaimedWork,
    credentials: RunnerCredentials,
    view: TurnView,
  ) {
    this.note = {
      runnerId: credentials.runnerId,
      unit: { id: unit.id, kind: unit.kind },
      attempt: unit.attempt ?? 1,
      runtime: null,
      startedAt: view.startedAt,
      pid: null,
      seat: view.seat,
      buildRequestId: view.buildRequestId,
    };
  }

  recordRunning(runtime: RunningRecord['runtime']): Promise<void> {
    this.note = { ...this.note, runtime };
    return this.journal.record(this.note).finally(this.firstNoted);
  }

  // The note learns the process (pid and start time): a restart can then stop that very process.
  // The runtime may start while the first note is being written: this one lands after it.
  onSpawn(pid: number): void {
    this.spawnNoted = this.spawnNoted
      .then(() => this.recorded)
      .then(async () => {
        const processStart = await processStartToken(pid);
        this.note = { ...this.note, pid, processStart };
        await this.journal.record(this.note);
      })
      .catch((error: unknown) => this.log.warn('could not note the runtime process in the journal', { unit: this.note.unit.id, error: errorText(error) }));
  }

  /** Settles once every note of the process asked for so far is written. */
  written(): Promise<void> {
    return this.spawnNoted;
  }
}

/** The deps of a launched unit's run. */
export function unitRunDeps(
  deps: UnitLauncherDeps,
  unit: ClaimedWork,
  target: { connector: RunnerConnector; credentials: RunnerCredentials; controlPlaneUrl: string },
  capabilities: Capabilities,
  notes: RunningNotes,
): UnitRunDeps {
  const host = deps.host;
  return {
    clock: deps.clock,
    log: deps.log.child('unit'),
    connector: target.connector,
    credentials: target.credentials,
    tenantId: host.tenantId(),
    controlPlaneUrl: target.controlPlaneUrl,
    runtimePreference: host.runtime(),
    capabilities,
    tripped: deps.breaker?.state ?? {},
    executor: deps.executor,
    resume: deps.resume,
    knownSecrets: deps.knownSecrets,
    ...(deps.runtimeEnv ? { env: deps.runtimeEnv } : {}),
    ...(deps.admission ? { admits: (runtime: 'claude' | 'codex') => deps.admission!.admits(runtime) } : {}),
    patch: (patch) => deps.registry.patch(unit.id, patch),
    transcript: (line) => deps.registry.transcript(unit.id, line),
    transcriptBacklog: () => deps.registry.transcriptBacklog(unit.id),
    onRevoked: () => host.markRevoked(),
    recordRunning: (runtime) => notes.recordRunning(runtime),
    onSpawn: (pid) => notes.onSpawn(pid),
  };
}
