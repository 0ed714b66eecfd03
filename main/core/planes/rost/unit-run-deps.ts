/**
 * What one unit's run is given: the connector and credentials it starts, leases and reports with, the
 * capabilities and preference its runtime is chosen from, the executor and resume cache it runs with, and
 * the callbacks through which it patches its turn row, writes its running note and tells of its process.
 */
import type { TranscriptLine } from '../../../../shared/transcript';
import type { TurnView } from '../../../../shared/turns';
import type { RunnerConnector, RunnerCredentials } from './connector';
import type { Clock, Logger } from '../../base/ports';
import type { Capabilities, RuntimePreference, TrippedRuntimes } from '../../runner/capabilities';
import type { UnitExecutor } from '../../exec/executor-port';
import type { ResumeCache } from './resume-cache';

export const DEFAULT_TURN_TIMEOUT_MS = 30 * 60_000;

export interface UnitRunDeps {
  clock: Clock;
  log: Logger;
  connector: RunnerConnector;
  credentials: RunnerCredentials;
  tenantId: string | null;
  controlPlaneUrl: string;
  runtimePreference: RuntimePreference;
  capabilities: Capabilities;
  /** Runtimes the circuit breaker paused. */
  tripped?: TrippedRuntimes | undefined;
  executor: UnitExecutor;
  resume: ResumeCache;
  knownSecrets(): readonly string[];
  env?: Record<string, string>;
  patch(patch: Partial<TurnView>): void;
  /** A line of the turn's live transcript (redacted). */
  transcript?(line: TranscriptLine): void;
  /** The transcript's lines waiting for the disk past their limit: the runtime's output waits for this. */
  transcriptBacklog?(): Promise<void> | null;
  onRevoked(): void;
  /**
   * Writes the running note. Called BEFORE the start call: a unit the server saw start
   * must be in the journal whatever happens next (a unit noted but never started is
   * harmless: the restart reports it failed once).
   */
  recordRunning(runtime: 'claude' | 'codex' | null): Promise<void>;
  /** The runtime's process started (its pid leads the process group). */
  onSpawn?(pid: number): void;
  /** Usage admission per runtime (absent: every runtime is admitted). */
  admits?(runtime: 'claude' | 'codex'): boolean;
}
