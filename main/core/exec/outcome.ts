import { RESULT_SUMMARY_MAX } from '../../../shared/protocol';
import { redactText } from '../../../shared/redact';
import type { ChildResult } from './child-run';
import type { RuntimeReport } from './runtime-report';

/**
 * From what the process did (child-run) and what its output said (runtime-report) to the
 * status, reason and summary the control plane gets.
 *
 * Status: cancel → canceled; timeout → failed/timeout; not started → failed/spawn_error;
 * the runtime's own verdict "failed" (claude `is_error`, codex `turn.failed`) →
 * failed/runtime_error whatever the exit code; otherwise the exit code decides (exit).
 *
 * Summary (seed rule): the runtime's answer when its output was structured, else stdout,
 * else stderr, else "completed"; a failure gets a first line that says what happened.
 * Always redacted, at most RESULT_SUMMARY_MAX characters, and it says when output was
 * cut at the capture cap.
 */
export type OutcomeStatus = 'succeeded' | 'failed' | 'canceled';
export type OutcomeReason = 'exit' | 'timeout' | 'canceled' | 'spawn_error' | 'runtime_error';

export interface SummaryInput {
  runtime: string;
  binary: string;
  timeoutMs: number;
  child: ChildResult;
  report: RuntimeReport;
  stdout: string;
  stderr: string;
  /** codex: stderr carries warnings and "Reading additional input…" even on success. */
  stderrIsNoise: boolean;
  /** Redacted tail of the output, shown after a timeout or cancel for context. */
  tail: string;
  /** Set when some output was dropped at the cap. */
  truncatedAtBytes: number | null;
  knownSecrets: readonly string[];
}

const TAIL_IN_SUMMARY = 2_000;

export function decideStatus(child: ChildResult, report: RuntimeReport): { status: OutcomeStatus; reason: OutcomeReason } {
  switch (child.endedBy) {
    case 'canceled':
      return { status: 'canceled', reason: 'canceled' };
    case 'timeout':
      return { status: 'failed', reason: 'timeout' };
    case 'spawn_error':
      return { status: 'failed', reason: 'spawn_error' };
    case 'exit':
      if (report.ok === false) return { status: 'failed', reason: 'runtime_error' };
      return { status: child.exitCode === 0 ? 'succeeded' : 'failed', reason: 'exit' };
  }
}

export function spawnErrorMessage(runtime: string, binary: string, error: NodeJS.ErrnoException | undefined): string {
  const code = error?.code ?? 'unknown';
  const hint = `Check that ${runtime} is installed and the runtime path in settings is right.`;
  const why =
    code === 'ENOENT'
      ? `the program was not found. ${hint}`
      : code === 'EACCES'
        ? `the program is not executable. ${hint}`
        : code === 'E2BIG'
          ? 'the prompt is too long for a command line'
          : (error?.message ?? 'unknown error');
  return `could not start ${runtime} (${binary}) [${code}]: ${why}`;
}

function seedRule(stdout: string, stderr: string): string {
  return stdout.trim() || stderr.trim() || 'completed';
}

function withTail(head: string, tail: string): string {
  const t = tail.trim();
  if (!t) return head;
  return `${head}\n--- last output ---\n${t.length > TAIL_IN_SUMMARY ? t.slice(t.length - TAIL_IN_SUMMARY) : t}`;
}

function rawSummary(input: SummaryInput, reason: OutcomeReason): string {
  const { runtime, child, report } = input;
  const succeeded = reason === 'exit' && child.exitCode === 0;
  const fallback = input.stderrIsNoise && succeeded ? 'completed' : seedRule(input.stdout, input.stderr);
  const answer = report.text !== null ? report.text.trim() || 'completed' : fallback;
  switch (reason) {
    case 'canceled':
      if (child.pid === undefined) return `canceled before ${runtime} started`;
      return withTail(`canceled: the ${runtime} process tree was stopped`, input.tail);
    case 'timeout':
      return withTail(`${runtime} timed out after ${input.timeoutMs} ms; the process tree was stopped`, input.tail);
    case 'spawn_error':
      return spawnErrorMessage(runtime, input.binary, child.spawnError);
    case 'runtime_error':
      return answer;
    case 'exit':
      if (child.exitCode === 0) return answer;
      return child.exitCode === null
        ? `${runtime} was killed by ${child.exitSignal ?? 'a signal'}\n${answer}`
        : `${runtime} exited with code ${child.exitCode}\n${answer}`;
  }
}

/** Cuts to `max` characters, keeping `note` whole at the end. */
export function clampSummary(text: string, note: string | null, max = RESULT_SUMMARY_MAX): string {
  const suffix = note ? `\n${note}` : '';
  const room = max - suffix.length;
  return (text.length > room ? text.slice(0, room) : text) + suffix;
}

export function composeSummary(input: SummaryInput, reason: OutcomeReason): string {
  // Redact before cutting, so the cut never leaves half a secret behind.
  const text = redactText(rawSummary(input, reason), input.knownSecrets);
  const note = input.truncatedAtBytes !== null ? `[output truncated at ${input.truncatedAtBytes} bytes]` : null;
  return clampSummary(text, note);
}
