import type { RateLimitReading } from '../../../../shared/usage';
import type { Clock, Logger } from '../../base/ports';
import type { AppServerConnection } from './connection';
import type { DynamicToolSet } from './dynamic-tools';
import type { SandboxMode } from './protocol';

/**
 * The shapes of one unit's turn on a codex app-server: what the caller gives (the
 * connection, the prompt, the sandbox, the bounds, the callbacks for the live transcript)
 * and what comes back (status, ids, tokens, the closeout's arguments, what was declined).
 */
export interface TurnTokens {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  /** Tokens in the model's context at the last request. */
  contextUsed: number;
  contextWindow: number | null;
  modelId: string | null;
}

export interface AppServerTurnSpec {
  connection: AppServerConnection;
  cwd: string;
  prompt: string;
  developerInstructions: string | null;
  sandbox: SandboxMode;
  model?: string | null;
  /** Per-thread config overrides (dotted keys), e.g. the control plane's MCP server. */
  config?: Record<string, unknown> | undefined;
  tools?: DynamicToolSet;
  timeoutMs: number;
  /** The bound of the one resumed turn after a timeout (default: timeoutMs). */
  resumeTimeoutMs?: number;
  /** The bound of the closeout nudge turn (default 60 s). */
  nudgeTimeoutMs?: number;
  /** From turn/interrupt to stopping the process tree (default 5 s). */
  interruptGraceMs?: number;
  /** Bound of each request (thread/start, turn/start, …; default 60 s). */
  requestTimeoutMs?: number;
  signal: AbortSignal;
  clock: Clock;
  log: Logger;
  /** Stops the server's process tree (cancel or interrupt that did not take). */
  kill(): Promise<void>;
  onLine?(line: string): void;
  /** Every notification of this turn's thread, as it arrives (the live transcript). */
  onNotification?(method: string, params: unknown): void;
  /** Every completed thread item but the user's own input (a connector's telemetry details). */
  onItem?(item: { type: string; id: string | null }): void;
  /** An approval or elicitation request, declined (unattended run). */
  onDeclined?(method: string): void;
  onTokens?(tokens: TurnTokens): void;
  onRateLimits?(reading: RateLimitReading): void;
}

export type AppServerTurnStatus = 'completed' | 'failed' | 'interrupted' | 'timeout' | 'canceled' | 'crashed';

export interface AppServerTurnResult {
  status: AppServerTurnStatus;
  threadId: string | null;
  turnIds: string[];
  lastAgentMessage: string | null;
  error: string | null;
  /** The turn failed because the account's usage limit was reached. */
  usageLimited: boolean;
  tokens: TurnTokens | null;
  /** The closeout tool's arguments, when it was called. */
  closeout: unknown;
  deniedRequests: string[];
  resumed: boolean;
  nudged: boolean;
  /** Whether the server's process tree had to be stopped. */
  killed: boolean;
}
