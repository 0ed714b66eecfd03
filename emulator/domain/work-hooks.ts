import type { RequestStatus, ResultRequest } from '../../shared/protocol';
import type { RunnerRecord } from './runners';
import type { UnitRow } from './units';

/** How runner work touches Forge state, without the work code knowing Forge tables. */
export interface ForgeWorkHooks {
  requestStatus(buildRequestId: string): RequestStatus | undefined;
  /** A packet built from trusted server state, or null when the unit's request is unknown. */
  buildContextPacket(unit: UnitRow, runner: RunnerRecord): unknown;
  onUnitStarted(unit: UnitRow): void;
  onUnitResult(unit: UnitRow, result: ResultRequest): void;
}
