import { describe, expect, it, vi } from 'vitest';
import type { ClaimedWork } from '../../../../main/core/planes/rost/connector';
import type { ExecutionOutcome } from '../../../../main/core/exec/executor-port';
import { isStaleResume, runResult, updateResume } from '../../../../main/core/planes/rost/unit-run-outcome';
import type { UnitRunDeps } from '../../../../main/core/planes/rost/unit-run-deps';
import { testLogging } from '../../../helpers/test-logger';

const unit: ClaimedWork = { id: 'u1', kind: 'turn_execution', prompt: 'do it', timeout_ms: 90_000 };

const outcome = (patch: Partial<ExecutionOutcome> = {}): ExecutionOutcome => ({
  status: 'succeeded',
  reason: 'exit',
  summary: 'all done\nsecond line',
  exitCode: 0,
  outputTail: 'tail',
  durationMs: 1_000,
  outputBytes: 10,
  ...patch,
});

function resumeDeps(fail = false) {
  const logging = testLogging();
  const resume = {
    remember: vi.fn(async (_key: string | null, _id: string) => (fail ? Promise.reject(new Error('disk full')) : undefined)),
    forget: vi.fn(async (_key: string | null) => undefined),
  };
  // updateResume reads only the resume cache and the log.
  const deps = { resume, log: logging.log } as unknown as UnitRunDeps;
  return { deps, resume, warnings: () => logging.entries.filter((e) => e.level === 'warn').map((e) => e.msg) };
}

describe('updateResume: what the resume cache learns from a claude turn', () => {
  it('remembers the session a successful turn reported, its write pushed beside the result', async () => {
    const { deps, resume } = resumeDeps();
    const after: Promise<unknown>[] = [];
    updateResume(deps, { runtime: 'claude', key: 'k' }, outcome({ sessionId: 's-1' }), null, after);
    expect(resume.remember).toHaveBeenCalledWith('k', 's-1');
    expect(after).toHaveLength(1);
    await Promise.all(after);
  });

  it('forgets the session a failed turn had resumed, and keeps one a failed fresh turn never used', () => {
    const { deps, resume } = resumeDeps();
    const after: Promise<unknown>[] = [];
    updateResume(deps, { runtime: 'claude', key: 'k' }, outcome({ status: 'failed' }), 'old-session', after);
    expect(resume.forget).toHaveBeenCalledWith('k');
    updateResume(deps, { runtime: 'claude', key: 'k' }, outcome({ status: 'canceled' }), null, after);
    expect(resume.forget).toHaveBeenCalledTimes(1);
    expect(after).toHaveLength(1);
  });

  it('leaves the cache alone for codex, without a key, or for a success that named no session', () => {
    const { deps, resume } = resumeDeps();
    const after: Promise<unknown>[] = [];
    updateResume(deps, { runtime: 'codex', key: 'k' }, outcome({ sessionId: 'thread-1' }), null, after);
    updateResume(deps, { runtime: 'claude', key: null }, outcome({ sessionId: 's-1' }), null, after);
    updateResume(deps, { runtime: 'claude', key: 'k' }, outcome(), null, after);
    expect(resume.remember).not.toHaveBeenCalled();
    expect(resume.forget).not.toHaveBeenCalled();
    expect(after).toEqual([]);
  });

  it('logs a failed cache write and goes on: the promise beside the result does not reject', async () => {
    const { deps, warnings } = resumeDeps(true);
    const after: Promise<unknown>[] = [];
    updateResume(deps, { runtime: 'claude', key: 'k' }, outcome({ sessionId: 's-1' }), null, after);
    await expect(Promise.all(after)).resolves.toBeDefined();
    expect(warnings()).toEqual(['resume cache update failed (continuing)']);
  });
});

describe('runResult: the result to report and the row, from the outcome', () => {
  it('reports a success with its summary, log ref, wire runtime, usage and idempotency key', () => {
    const usage = { input_tokens: 10, output_tokens: 20, cost_usd: 0.5 };
    const r = runResult(unit, 'u1:1', 'claude', outcome({ usage }), null);
    expect(r.result).toEqual({
      status: 'succeeded',
      summary: 'all done\nsecond line',
      log_ref: 'runner-local:u1',
      runtime: 'claude-cli',
      usage,
      idempotency_key: 'u1:1',
    });
    expect(r.view).toEqual({
      phase: 'succeeded',
      summary: 'all done\nsecond line',
      outputTail: 'tail',
      tokens: { input: 10, output: 20 },
      costUsd: 0.5,
      reason: null,
    });
  });

  it("says 'completed' to the control plane for an empty summary, and no usage without one", () => {
    const r = runResult(unit, 'k', 'codex', outcome({ summary: '' }), null);
    expect(r.result?.summary).toBe('completed');
    expect(r.result?.runtime).toBe('codex-cli');
    expect(r.result).not.toHaveProperty('usage');
    expect(r.view).toMatchObject({ summary: '', tokens: null, costUsd: null });
  });

  it("gives a failure its summary's first line as the reason, and a timeout the unit's own limit", () => {
    expect(runResult(unit, 'k', 'claude', outcome({ status: 'failed', summary: '\n  \nboom\nmore' }), null).view.reason).toBe('boom');
    expect(runResult(unit, 'k', 'claude', outcome({ status: 'failed', reason: 'timeout' }), null).view.reason).toBe('timed out after 90 s');
    const noLimit = { ...unit, timeout_ms: undefined };
    expect(runResult(noLimit, 'k', 'claude', outcome({ status: 'failed', reason: 'timeout' }), null).view.reason).toBe('timed out after 1800 s');
  });

  it('gives a cancel the reason it was canceled for', () => {
    expect(runResult(unit, 'k', 'claude', outcome({ status: 'canceled', reason: 'canceled' }), 'lease lost').view.reason).toBe('lease lost');
    expect(runResult(unit, 'k', 'claude', outcome({ status: 'canceled', reason: 'canceled' }), null).view.reason).toBe('canceled');
  });

  it('clips a summary to what the protocol takes', () => {
    const r = runResult(unit, 'k', 'claude', outcome({ summary: 'x'.repeat(20_000) }), null);
    expect(r.result?.summary).toHaveLength(12_000);
    expect(r.view.summary).toHaveLength(12_000);
  });
});

describe('isStaleResume', () => {
  it("recognises claude's answer to a resume id it has no conversation for, in the summary or the tail", () => {
    expect(isStaleResume(outcome({ status: 'failed', summary: 'No conversation found with session ID: abc' }))).toBe(true);
    expect(isStaleResume(outcome({ status: 'failed', summary: '', outputTail: 'error: no conversation found' }))).toBe(true);
    expect(isStaleResume(outcome({ status: 'failed', summary: 'rate limited' }))).toBe(false);
  });
});
