import type { Clock, Logger } from '../../base/ports';
import { processStartToken } from '../../exec/process-start';
import { terminateTree } from '../../exec/process-tree';
import type { ResultOutbox } from './outbox';
import type { RunningJournal, RunningRecord } from './running-journal';
import type { TurnRegistry } from '../../work/turn-registry';
import { failedUnit } from './unit-result';

export interface RecoveryDeps {
  clock: Clock;
  log: Logger;
  profile: string;
  journal: RunningJournal;
  outbox: ResultOutbox;
  registry: TurnRegistry;
}

/*
 * After a crash: runtimes the dead host left running are stopped (only the very processes
 * it started) before their files are swept, and the units they ran are reported failed, once.
 */

/** Stops the recorded process groups that are still the very processes we started. */
export async function stopOrphans(deps: Pick<RecoveryDeps, 'clock' | 'log'>, records: RunningRecord[]): Promise<void> {
  for (const record of records) {
    if (record.pid === null || !record.processStart) continue;
    const now = await processStartToken(record.pid);
    if (now !== record.processStart) continue; // gone, or the pid belongs to another process now
    const result = await terminateTree(record.pid, { graceMs: 3_000, clock: deps.clock, rootReaped: false });
    deps.log.warn('stopped a runtime left running by the previous run', {
      unit: record.unit.id,
      pid: record.pid,
      signaled: result.signaled.length,
      survivors: result.survivors.length,
    });
  }
}

/** Units that were running when the last process died are reported failed, once. */
export async function reportInterrupted(deps: RecoveryDeps, records: RunningRecord[]): Promise<void> {
  for (const record of records) {
    await deps.outbox.enqueue({
      runnerId: record.runnerId,
      unit: record.unit,
      result: failedUnit({ id: record.unit.id, attempt: record.attempt }, 'runner restarted', record.runtime).result,
    });
    await deps.journal.clear(record.unit.id);
    const now = new Date(deps.clock.now()).toISOString();
    deps.registry.addFinished({
      id: record.unit.id,
      profile: deps.profile,
      kind: record.unit.kind,
      runtime: record.runtime,
      seat: record.seat ?? null,
      buildRequestId: record.buildRequestId ?? null,
      startedAt: record.startedAt,
      endedAt: now,
      phase: 'failed',
      pid: record.pid,
      tokens: null,
      costUsd: null,
      outputTail: '',
      summary: 'runner restarted',
      lease: null,
      reason: 'interrupted by a restart: reported failed',
      delivery: { state: 'sending', attempts: 0, since: now, reason: null },
    });
    deps.log.warn('a unit was running when the runner stopped; reported it failed', { unit: record.unit.id });
  }
}
