import { describe, expect, it, vi } from 'vitest';
import type { TranscriptLine } from '../../../shared/transcript';
import { RESULT_SUMMARY_MAX } from '../../../shared/protocol';
import { MCP_TOKEN, request, setup } from './exec-helpers';

// What the executor makes of a runtime's output: claude JSON, codex JSONL, plain text,
// huge output, and secrets in any of them.

describe('LocalRuntimeExecutor output', () => {
  it('reads a claude JSON result: answer, session id, usage with cache tokens and cost', async () => {
    const { executor } = setup();
    const outcome = await executor.execute(request({ FAKE_MODE: 'json', FAKE_RESULT: 'All done.', FAKE_SESSION: 'sess-42' }));
    expect(outcome).toMatchObject({
      status: 'succeeded',
      reason: 'exit',
      exitCode: 0,
      summary: 'All done.',
      sessionId: 'sess-42',
      usage: { input_tokens: 17, output_tokens: 7, cost_usd: 0.0123 },
    });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
  });

  it.each([
    { exit: '0', label: 'even with exit code 0' },
    { exit: '1', label: 'with exit code 1' },
  ])('claude is_error: true → failed runtime_error ($label)', async ({ exit }) => {
    const { executor } = setup();
    const outcome = await executor.execute(request({ FAKE_MODE: 'json', FAKE_IS_ERROR: '1', FAKE_EXIT: exit, FAKE_RESULT: 'API Error: 400 nope' }));
    expect(outcome).toMatchObject({ status: 'failed', reason: 'runtime_error', exitCode: Number(exit), summary: 'API Error: 400 nope' });
    // The session id still comes back: the caller clears its resume cache on a failed resumed turn.
    expect(outcome.sessionId).toBeDefined();
  });

  it('reads codex JSONL: last agent message, thread id, usage; ignores the metadata error item', async () => {
    const { executor } = setup();
    const outcome = await executor.execute(request({ FAKE_MODE: 'jsonl', FAKE_RESULT: 'codex finished' }, { runtime: 'codex' }));
    expect(outcome).toMatchObject({
      status: 'succeeded',
      reason: 'exit',
      summary: 'codex finished',
      sessionId: 'thread-fake-1',
      usage: { input_tokens: 40, output_tokens: 12 },
    });
  });

  it('claude stream-json: the transcript streams as the turn goes, redacted, and the result event is the outcome', async () => {
    const { executor } = setup();
    const lines: TranscriptLine[] = [];
    const outcome = await executor.execute(request({ FAKE_MODE: 'stream', FAKE_RESULT: 'streamed and done' }, { onTranscript: (line) => lines.push(line) }));
    expect(outcome).toMatchObject({ status: 'succeeded', summary: 'streamed and done', usage: { cost_usd: 0.0123 } });
    expect(lines.map((l) => `${l.kind}:${l.text}`)).toEqual(['note:claude started (fake-model)', 'text:working on it', 'command:$ ls', 'output:a.txt']);
  });

  it('a canceled claude turn keeps what it streamed, and the MCP token never shows in it', async () => {
    const { executor } = setup();
    const lines: TranscriptLine[] = [];
    const abort = new AbortController();
    const run = executor.execute(request({ FAKE_MODE: 'stream', FAKE_HANG: '1' }, { signal: abort.signal, onTranscript: (line) => lines.push(line) }));
    await vi.waitFor(() => expect(lines.some((l) => l.kind === 'command')).toBe(true));
    abort.abort();
    expect(await run).toMatchObject({ status: 'canceled' });
    expect(lines.map((l) => `${l.kind}:${l.text}`)).toEqual(['note:claude started (fake-model)', 'text:working with [REDACTED] now', 'command:$ ls']);
  });

  it('codex turn.failed → failed runtime_error with the error as summary', async () => {
    const { executor } = setup();
    const outcome = await executor.execute(request({ FAKE_MODE: 'jsonl', FAKE_FAIL: '1' }, { runtime: 'codex' }));
    expect(outcome).toMatchObject({ status: 'failed', reason: 'runtime_error', exitCode: 1, summary: 'codex turn failed: model said no' });
  });

  it('work orders read plain text (stdout)', async () => {
    const { executor } = setup();
    const outcome = await executor.execute(request({ FAKE_MODE: 'text', FAKE_RESULT: 'plain words' }, { kind: 'work_order' }));
    expect(outcome).toMatchObject({ status: 'succeeded', summary: 'plain words' });
    expect(outcome.sessionId).toBeUndefined();
  });

  it('caps huge output: counts every byte, keeps the cap, says so, throttles the tail', async () => {
    const cap = 1024 * 1024;
    const total = 20 * 1024 * 1024;
    const { executor } = setup({ maxOutputBytes: cap, tailBytes: 4096 });
    const emits: number[] = [];
    const t0 = performance.now();
    const outcome = await executor.execute(
      request({ FAKE_MODE: 'huge', FAKE_BYTES: String(total) }, { kind: 'work_order', onOutput: () => emits.push(performance.now()) }),
    );
    const elapsed = performance.now() - t0;
    expect(outcome.status).toBe('succeeded');
    expect(outcome.outputBytes).toBe(total);
    expect(outcome.summary.length).toBeLessThanOrEqual(RESULT_SUMMARY_MAX);
    expect(outcome.summary.endsWith(`\n[output truncated at ${cap} bytes]`)).toBe(true);
    expect(outcome.outputTail.length).toBeLessThanOrEqual(4096);
    expect(outcome.outputTail).toMatch(/x{1000}/);
    // ≤ 4 per second, plus the first (immediate) and the final flush.
    expect(emits.length).toBeGreaterThan(0);
    expect(emits.length).toBeLessThanOrEqual(Math.ceil(elapsed / 250) + 2);
  });

  it.each(['claude', 'codex'] as const)('redacts the MCP token from summary, tail and live output (%s)', async (runtime) => {
    const { executor } = setup();
    const tails: string[] = [];
    const outcome = await executor.execute(request({ FAKE_MODE: 'echo-secret' }, { runtime, kind: 'work_order', onOutput: (t) => tails.push(t) }));
    expect(outcome.status).toBe('succeeded');
    for (const text of [outcome.summary, outcome.outputTail, ...tails]) {
      expect(text).not.toContain(MCP_TOKEN);
      expect(text).not.toContain('zzUnknown0099887766aabb');
    }
    if (runtime === 'claude') {
      // stdout is the summary for a claude work order: every line, redacted.
      expect(outcome.summary).toBe('the token is [REDACTED]\nAuthorization: [REDACTED]\nretrying with bearer [REDACTED]');
    }
    expect(outcome.outputTail).toContain('debug: using [REDACTED]');
    expect(tails.length).toBeGreaterThan(0);
  });
});
