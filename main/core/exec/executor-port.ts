import type { RuntimeId } from '../../../shared/runtimes';
import type { Usage } from '../../../shared/protocol';
import type { TranscriptLine } from '../../../shared/transcript';
import type { RateLimitReading } from '../../../shared/usage';
import type { DynamicToolSet } from './codex-app-server/dynamic-tools';

/**
 * The port through which the work manager runs a unit with a local runtime; the real
 * implementation is exec/executor.ts (claude and codex CLIs), tests may fake it.
 */
export interface ExecutionRequest {
  unitId: string;
  kind: 'turn_execution' | 'work_order';
  runtime: RuntimeId;
  /** Resolved path of the CLI (a .js/.mjs/.cjs path is run with this Node). */
  binary: string;
  /** The final prompt text (≤ UNIT_PROMPT_MAX_BYTES; sent on the runtime's stdin). */
  prompt: string;
  /** serverUrl absolute (http/https), e.g. http://127.0.0.1:7457/mcp */
  mcp: { serverUrl: string; token: string } | null;
  /** claude only: `--resume <id>` (ignored, with a warning, for codex). */
  resumeSessionId: string | null;
  timeoutMs: number;
  /** Abort = cancel: the whole process tree is stopped at once. */
  signal: AbortSignal;
  /**
   * Extra environment for the child, set by the host (tests point the CLIs at stubs), over
   * the clean allowlisted environment (isolation/clean-env.ts): never the runner's own names
   * nor a known secret's value.
   */
  env?: Record<string, string>;
  /** Secrets to redact everywhere (the MCP token, the runner secret). */
  knownSecrets: readonly string[];
  /**
   * Whether the control plane took the unit's start (its start call is made beside the
   * turn's preparation). The turn folder and the sandboxed command are made, and where the
   * runtime dies with this host it is started too, while the call is under way; the prompt
   * goes to it only once this resolves true. False: it is stopped before it had its prompt
   * (a `canceled` outcome nobody reports). Absent: the start is already known to be taken.
   */
  startAccepted?: Promise<boolean>;
  /**
   * Given: `execute` resolves as soon as the outcome is known, and the turn folder is removed
   * after (its removal, which never rejects, is handed here), so the result need not wait for it.
   */
  cleanupLater?(removal: Promise<void>): void;
  onSpawn?(pid: number): void;
  /** The redacted output tail, at most 4 times a second. */
  onOutput?(tail: string): void;
  /** Each redacted transcript line as the runtime streams it (an open line again as it grows). */
  onTranscript?(line: TranscriptLine): void;
  /** A promise while the transcript's lines wait for the disk past their limit: the runtime's output is paused until it resolves. */
  transcriptBacklog?(): Promise<void> | null;
  /** codex: `exec` (one process per turn) or `app-server` (a long-lived JSON-RPC server); default exec. */
  codexDriver?: 'exec' | 'app-server';
  /** app-server: developer instructions of the thread (the prompt then starts the turn). */
  developerInstructions?: string | null;
  /** app-server: tools a connector lends the model for this unit (e.g. a closeout). */
  tools?: DynamicToolSet;
  /** Rate-limit windows as the runtime reports them during the turn. */
  onRateLimits?(reading: RateLimitReading): void;
}

/** The turn failed because the model account's usage limit was reached. */
export interface UsageLimitHit {
  message: string;
  /** When the limit resets (epoch ms), when the runtime said. */
  resetsAt: number | null;
}

export interface ExecutionOutcome {
  status: 'succeeded' | 'failed' | 'canceled';
  /** canceled: aborted; timeout; spawn_error: could not start; runtime_error: the runtime reported failure; exit: the exit code decided. */
  reason: 'exit' | 'timeout' | 'canceled' | 'spawn_error' | 'runtime_error';
  /** Redacted, ≤ 12000 characters. */
  summary: string;
  exitCode: number | null;
  usage?: Usage;
  /** claude `session_id` (JSON output) / codex `thread_id`. */
  sessionId?: string;
  /** Redacted. */
  outputTail: string;
  durationMs: number;
  /** Bytes the runtime printed (stdout + stderr), including what was dropped at the cap. */
  outputBytes: number;
  /** Set when the turn failed because the account's usage limit was reached. */
  usageLimit?: UsageLimitHit;
  /** app-server: the closeout tool's arguments, when the model called it. */
  closeout?: unknown;
  /** app-server: the model and how full its context was at the last request. */
  context?: { modelId: string | null; used: number; window: number | null };
}

export interface UnitExecutor {
  execute(request: ExecutionRequest): Promise<ExecutionOutcome>;
  sweepStale(): Promise<number>;
}
