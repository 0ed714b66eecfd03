import type { DynamicToolHost } from './closeout-tools';
import type { SandboxMode } from '../../../../shared/sechroom-instance-settings';

/*
 * The port a Sechroom session runs one turn through: the shape a codex app-server turn has
 * (the codex app-server driver implements it). Instructions and dynamic tools go in; the outcome,
 * the usage and the thread's detail events come out; the signal cancels (turn/interrupt).
 * The closeout itself arrives through the tool host, not the outcome.
 */

export interface TurnUsage {
  tokensIn: number;
  tokensOut: number;
  contextUsed: number;
  contextWindow: number;
  modelId: string | null;
}

/** A thread item or server request worth a telemetry detail event (seed B8 `mapThreadItem`, approvals). */
export interface TurnDetail {
  kind: 'Raw' | 'Parsed' | 'Approval';
  text: string;
  approvalState?: string | null;
}

export interface TurnRequest {
  taskId: string;
  leaseId: string;
  title: string;
  /** `thread/start.developerInstructions`. */
  instructions: string;
  /** The first user input (`turn/start.input`). */
  input: string;
  tools: DynamicToolHost;
  cwd: string;
  model: string | null;
  sandbox: SandboxMode;
  turnTimeoutMs: number;
  resumeTurnTimeoutMs: number;
  /** Aborted when the Work Layer asks to cancel, the lease ends, or a stop drains out. */
  signal: AbortSignal;
  onDetail(detail: TurnDetail): void;
  onUsage?(usage: TurnUsage): void;
}

export type TurnOutcome =
  | { status: 'completed'; lastAgentMessage: string; usage: TurnUsage | null; turnId: string | null }
  | { status: 'timeout'; reason: string; lastAgentMessage?: string; usage?: TurnUsage | null; turnId?: string | null }
  | { status: 'crashed'; reason: string }
  | { status: 'canceled'; reason: string };

export interface SechroomTurnRunner {
  run(request: TurnRequest): Promise<TurnOutcome>;
}

/** Before each claim: may this instance take more work now? */
export interface AdmissionPort {
  check(): Promise<{ ok: true } | { ok: false; reason: string; retryAt?: number | null }>;
}

/** Before each claim: is the root (checkout) ready for a turn? (B11 delivery's clean-root check.) */
export interface RootReadyPort {
  check(): Promise<{ ok: true } | { ok: false; reason: string }>;
}
