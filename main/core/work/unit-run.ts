import { RESULT_SUMMARY_MAX, type ResultRequest } from '../../../shared/protocol';
import { redactText } from '../../../shared/redact';
import type { TurnView } from '../../../shared/turns';
import type { ClaimedWork, RunnerConnector, RunnerCredentials } from '../connectors/connector';
import { isConnectorError } from '../connectors/errors';
import type { Clock, Logger, TimerHandle } from '../ports';
import { chooseRuntime, type Capabilities, type RuntimePreference } from '../runner/capabilities';
import type { ExecutionOutcome, UnitExecutor } from './executor-port';
import { admittedCapabilities } from './claim-admission';
import { checkContextPacket, composePrompt } from './prompt';
import type { ResumeCache } from './resume-cache';
import { resumeKey } from './resume-cache';

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
  executor: UnitExecutor;
  resume: ResumeCache;
  knownSecrets(): readonly string[];
  env?: Record<string, string>;
  patch(patch: Partial<TurnView>): void;
  onRevoked(): void;
  /** Called once the unit is started at the server, before anything runs. */
  onStarted(runtime: 'claude' | 'codex' | null): Promise<void>;
  /** Usage admission per runtime (absent: every runtime is admitted). */
  admits?(runtime: 'claude' | 'codex'): boolean;
}

export interface UnitRunResult {
  result: ResultRequest & { idempotency_key: string };
  view: Partial<TurnView>;
}

/**
 * One unit, start to result: start at the server, check the context packet, pick the
 * runtime, keep the lease, run, and turn the outcome into a result. It never throws for
 * anything the unit did; the caller durably queues the result it returns.
 */
export class UnitRun {
  readonly abort = new AbortController();
  private leaseTimer: TimerHandle | null = null;
  private leaseAlive = true;
  private cancelReason: string | null = null;

  constructor(
    private readonly unit: ClaimedWork,
    private readonly deps: UnitRunDeps,
  ) {}

  get key(): string {
    return `${this.unit.id}:${this.unit.attempt ?? 1}`;
  }

  cancel(reason: string): void {
    if (this.abort.signal.aborted) return;
    this.cancelReason = reason;
    this.deps.patch({ phase: 'canceling', reason });
    this.abort.abort();
  }

  async run(): Promise<UnitRunResult | null> {
    const { deps, unit } = this;
    try {
      await deps.connector.start(deps.credentials, unit);
    } catch (error) {
      if (isConnectorError(error, 'unauthorized')) {
        deps.onRevoked();
        return null;
      }
      const message = redactText(error instanceof Error ? error.message : String(error), deps.knownSecrets());
      deps.log.warn('unit start refused', { unit: unit.id, error: message });
      return this.failed(message.startsWith('start failed') ? message : `start failed: ${message}`, null);
    }

    const packet = checkContextPacket(unit.context_packet);
    const brain = brainOf(unit.brain);
    // A unit without a brain of its own goes to a runtime whose account is not deferred.
    const choosable =
      brain === 'auto' && deps.runtimePreference === 'auto' && deps.admits ? admittedCapabilities(deps.capabilities, deps.admits) : deps.capabilities;
    const choice = brain
      ? chooseRuntime(brain, deps.runtimePreference, choosable)
      : ({ ok: false, reason: `This runner cannot execute a ${String(unit.brain).slice(0, 40)} turn (it runs claude or codex).` } as const);
    await deps.onStarted(choice.ok ? choice.runtime : null);
    if (!packet.ok) return this.failed(packet.reason, null);
    if (!choice.ok) return this.failed(choice.reason, null);
    const runtime = choice.runtime;
    const binary = deps.capabilities[runtime].path;
    if (!binary) return this.failed(`${runtime} is not installed on this machine.`, runtime);

    const key = runtime === 'claude' && unit.kind === 'turn_execution' ? resumeKey(deps.tenantId, unit) : null;
    const resumeSessionId = deps.resume.get(key);
    deps.patch({ phase: 'running', runtime });
    const lent = deps.connector.unitTools?.(deps.credentials, unit) ?? null;
    this.startLease();
    let outcome: ExecutionOutcome;
    try {
      outcome = await deps.executor.execute({
        unitId: unit.id,
        kind: unit.kind,
        runtime,
        binary,
        prompt: composePrompt(unit.prompt, packet.packet),
        mcp: unit.mcp ? { serverUrl: new URL(unit.mcp.url || '/mcp', `${deps.controlPlaneUrl}/`).toString(), token: unit.mcp.token } : null,
        resumeSessionId,
        timeoutMs: unit.timeout_ms ?? DEFAULT_TURN_TIMEOUT_MS,
        signal: this.abort.signal,
        ...(deps.env ? { env: deps.env } : {}),
        knownSecrets: [...deps.knownSecrets(), ...(unit.mcp ? [unit.mcp.token] : [])],
        onSpawn: (pid) => deps.patch({ pid }),
        onOutput: (tail) => deps.patch({ outputTail: tail }),
        ...(lent ? { tools: lent.tools, developerInstructions: lent.developerInstructions ?? null } : {}),
      });
    } finally {
      this.stopLease();
    }

    if (key && runtime === 'claude') {
      try {
        if (outcome.status === 'succeeded' && outcome.sessionId) await deps.resume.remember(key, outcome.sessionId);
        else if (outcome.status !== 'succeeded' && resumeSessionId) await deps.resume.forget(key);
      } catch (error) {
        deps.log.warn('resume cache update failed (continuing)', { error: error instanceof Error ? error.message : String(error) });
      }
    }

    const reason =
      outcome.status === 'canceled'
        ? (this.cancelReason ?? 'canceled')
        : outcome.status === 'failed'
          ? outcome.reason === 'timeout'
            ? `timed out after ${Math.round((unit.timeout_ms ?? DEFAULT_TURN_TIMEOUT_MS) / 1000)} s`
            : firstLine(outcome.summary)
          : null;
    return {
      result: {
        status: outcome.status,
        summary: clip(outcome.summary || 'completed'),
        log_ref: `runner-local:${unit.id}`,
        runtime: runtime === 'claude' ? 'claude-cli' : 'codex-cli',
        ...(outcome.usage ? { usage: outcome.usage } : {}),
        idempotency_key: this.key,
      },
      view: {
        phase: outcome.status,
        summary: clip(outcome.summary),
        outputTail: outcome.outputTail,
        tokens: outcome.usage ? { input: outcome.usage.input_tokens, output: outcome.usage.output_tokens } : null,
        costUsd: outcome.usage?.cost_usd ?? null,
        reason,
      },
    };
  }

  private failed(reason: string, runtime: 'claude' | 'codex' | null): UnitRunResult {
    const summary = clip(redactText(reason, this.deps.knownSecrets()));
    return {
      result: {
        status: 'failed',
        summary,
        log_ref: `runner-local:${this.unit.id}`,
        ...(runtime ? { runtime: runtime === 'claude' ? ('claude-cli' as const) : ('codex-cli' as const) } : {}),
        idempotency_key: this.key,
      },
      view: { phase: 'failed', summary, reason: firstLine(summary) },
    };
  }

  /** Lease heartbeats while the runtime runs; the server may ask us to pause or cancel. */
  private startLease(): void {
    const every = this.unit.lease?.heartbeat_ms;
    if (!every) return;
    const startedAt = this.deps.clock.now();
    const beat = async () => {
      this.leaseTimer = null;
      if (!this.leaseAlive) return;
      try {
        const answer = await this.deps.connector.leaseHeartbeat(this.deps.credentials, this.unit, { elapsed_ms: this.deps.clock.now() - startedAt });
        if (!this.leaseAlive) return;
        if (answer === null) {
          this.deps.log.info('the control plane has no lease heartbeat; running without one', { unit: this.unit.id });
          return;
        }
        this.deps.patch({ lease: answer.status });
        if (answer.status === 'cancel_requested') {
          this.deps.log.info('the control plane asked to cancel a running unit', { unit: this.unit.id, reason: answer.reason });
          this.cancel(`canceled by the control plane${answer.reason ? ` (${answer.reason})` : ''}`);
          return;
        }
        if (answer.status === 'pause_requested') {
          this.deps.log.info('the control plane asked to pause after this turn', { unit: this.unit.id });
        }
      } catch (error) {
        if (isConnectorError(error, 'unauthorized')) return this.deps.onRevoked();
        this.deps.log.warn('lease heartbeat failed', { unit: this.unit.id, error: error instanceof Error ? error.message : String(error) });
      }
      if (this.leaseAlive) this.leaseTimer = this.deps.clock.setTimeout(() => void beat(), every);
    };
    this.leaseTimer = this.deps.clock.setTimeout(() => void beat(), every);
  }

  private stopLease(): void {
    this.leaseAlive = false;
    if (this.leaseTimer !== null) this.deps.clock.clearTimeout(this.leaseTimer);
    this.leaseTimer = null;
  }
}

function brainOf(brain: string | undefined): 'claude' | 'codex' | 'auto' | null {
  if (brain === undefined || brain === 'auto') return 'auto';
  return brain === 'claude' || brain === 'codex' ? brain : null;
}

function clip(text: string): string {
  return text.length > RESULT_SUMMARY_MAX ? text.slice(0, RESULT_SUMMARY_MAX) : text;
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim().length > 0) ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
