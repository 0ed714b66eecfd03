import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TranscriptLine } from '../../shared/transcript';
import { systemClock } from '../../main/core/base/ports';
import { AppServerPool } from '../../main/core/exec/codex-app-server/server-pool';
import { LocalRuntimeExecutor } from '../../main/core/exec/executor';
import { isRunning } from '../../main/core/exec/process-tree';
import type { RateLimitReading } from '../../shared/usage';
import { CloseoutCollector, sechroomToolSet } from '../../main/core/planes/sechroom/closeout-tools';
import { testLogging } from '../helpers/test-logger';
import { startMcpStub, type McpStub } from '../stubs/mcp-stub';
import { callFunctionThenText, hasFunctionOutput, startResponsesStub, STUB_RESPONSES_USAGE, type ResponsesStub } from '../stubs/openai-responses-stub';
import { CODEX_BIN, codexEnv, realRequest, tempDir } from './real-cli-env';

// The real `codex app-server` (codex-cli 0.171.0) driven by the executor end to end against
// the loopback Responses stub and the MCP stub: an MCP tool call with the unit's token (in
// the thread's config), token usage and rate limits from its notifications (the rate limits
// come from the x-codex-* response headers the stub sends), and a cancel by turn/interrupt
// that leaves the long-lived server running for the next unit.

const TOKEN = 'unit-mcp-token-appserver-5f1c9a7e3b2d';

describe.sequential('real codex app-server', () => {
  let api: ResponsesStub;
  let mcp: McpStub;
  let home: ReturnType<typeof tempDir>;
  let work: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  let pool: AppServerPool;
  let executor: LocalRuntimeExecutor;
  const logging = testLogging();

  beforeAll(async () => {
    api = await startResponsesStub();
    mcp = await startMcpStub({ token: TOKEN });
    home = tempDir('codex-as-home');
    work = tempDir('codex-as-work');
    env = codexEnv(home.dir, api.baseUrl);
    pool = new AppServerPool({ log: logging.log, clock: systemClock, clientVersion: '0.0.0-test' });
    executor = new LocalRuntimeExecutor({
      workRoot: path.join(work.dir, 'runtime'),
      log: logging.log,
      appServerPool: pool,
      codexDriver: async () => 'app-server',
    });
  });

  afterAll(async () => {
    await executor?.stop();
    await Promise.all([api?.close(), mcp?.close()]);
    home?.remove();
    work?.remove();
  });

  it('a turn with an MCP tool call, token usage and rate limits', async () => {
    const resetAt = Math.floor(Date.now() / 1000) + 2 * 3600 + 14 * 60;
    api.headers = {
      'x-codex-primary-used-percent': '98.2',
      'x-codex-primary-window-minutes': '300',
      'x-codex-primary-reset-at': String(resetAt),
      'x-codex-secondary-used-percent': '40',
      'x-codex-secondary-window-minutes': '10080',
    };
    api.respond = callFunctionThenText({ name: 'report_progress', namespace: 'mcp__rost', arguments: { message: 'app-server halfway' } }, 'APP SERVER DONE');
    const readings: RateLimitReading[] = [];
    const lines: TranscriptLine[] = [];
    const requestsAtToolLine: number[] = [];
    const before = api.requests.length;
    const outcome = await executor.execute(
      realRequest({
        runtime: 'codex',
        binary: CODEX_BIN,
        env,
        mcp: { serverUrl: mcp.url, token: TOKEN },
        knownSecrets: [TOKEN],
        onRateLimits: (r) => readings.push(r),
        onTranscript: (line) => {
          lines.push(line);
          if (line.kind === 'tool') requestsAtToolLine.push(api.requests.length - before);
        },
      }),
    );
    expect(outcome).toMatchObject({ status: 'succeeded', reason: 'exit', summary: 'APP SERVER DONE' });
    // item notifications: the tool call showed while the turn ran (before the model was asked again), then the answer.
    const closed = lines.filter((l) => !l.open).map((l) => `${l.kind}:${l.text}`);
    expect(closed).toEqual(expect.arrayContaining(['tool:rost.report_progress', 'text:APP SERVER DONE']));
    expect(requestsAtToolLine).toEqual([1]);
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
    expect(mcp.toolCalls).toEqual([{ name: 'report_progress', arguments: { message: 'app-server halfway' }, token: TOKEN }]);
    expect(outcome.usage).toEqual({ input_tokens: 2 * STUB_RESPONSES_USAGE.input_tokens, output_tokens: 2 * STUB_RESPONSES_USAGE.output_tokens });
    expect(outcome.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    // thread/tokenUsage/updated: the context of the last request and the model's window.
    expect(outcome.context).toEqual({
      modelId: 'stub-model',
      used: STUB_RESPONSES_USAGE.input_tokens + STUB_RESPONSES_USAGE.output_tokens,
      window: expect.any(Number),
    });
    expect(readings.at(-1)?.primary).toMatchObject({ windowMinutes: 300, resetsAt: resetAt * 1000 });
    expect(readings.at(-1)?.primary?.usedPercent).toBeGreaterThanOrEqual(98);
    expect(readings.at(-1)?.secondary).toMatchObject({ usedPercent: 40, windowMinutes: 10080 });
    expect(JSON.stringify(logging.entries)).not.toContain(TOKEN);
  });

  it('a dynamic tool (the Sechroom closeout) called by the model reaches the connector', async () => {
    api.headers = {};
    api.respond = callFunctionThenText({ name: 'sechroom_closeout', arguments: { terminal_status: 'completed', summary: 'closed by real codex' } }, 'CLOSED');
    const host = new CloseoutCollector();
    const outcome = await executor.execute(
      realRequest({
        runtime: 'codex',
        binary: CODEX_BIN,
        env,
        tools: sechroomToolSet(host),
        developerInstructions: 'Close out when done.',
      }),
    );
    expect(outcome).toMatchObject({ status: 'succeeded', summary: 'CLOSED', closeout: { terminal_status: 'completed', summary: 'closed by real codex' } });
    expect(host.closeout).toEqual({ terminal_status: 'completed', summary: 'closed by real codex' });
    // The model saw both tools, and the tool's answer came back to it.
    const first = api.requests.at(-2)!;
    expect(first.raw).toContain('"sechroom_closeout"');
    expect(first.raw).toContain('"sechroom_lifecycle_signal"');
    expect(api.requests.at(-1)!.raw).toContain('closeout accepted');
  });

  it('a turn that times out after real work is interrupted and resumed on its thread (thread/resume on the live server)', async () => {
    api.headers = {};
    let hung = false;
    api.respond = (req) => {
      if (req.raw.includes('Resume the interrupted work')) return { kind: 'text', text: 'RESUMED AND DONE' };
      if (!hasFunctionOutput(req)) return { kind: 'function_call', name: 'report_progress', namespace: 'mcp__rost', arguments: { message: 'before the hang' } };
      hung = true;
      return { kind: 'hang' };
    };
    const outcome = await executor.execute(
      realRequest({ runtime: 'codex', binary: CODEX_BIN, env, mcp: { serverUrl: mcp.url, token: TOKEN }, knownSecrets: [TOKEN], timeoutMs: 4_000 }),
    );
    expect(hung).toBe(true);
    expect(outcome).toMatchObject({ status: 'succeeded', summary: 'RESUMED AND DONE' });
    expect(logging.entries.some((e) => /^fresh turn timed out after \d+ms with substantial work — resuming thread /.test(e.msg))).toBe(true);
    expect(logging.entries.some((e) => e.msg.startsWith('the codex turn did not stop'))).toBe(false);
  });

  it('cancel by turn/interrupt: the turn ends canceled and the same server runs the next unit', async () => {
    api.headers = {};
    const controller = new AbortController();
    let serverPid = 0;
    api.respond = () => {
      controller.abort();
      return { kind: 'hang' };
    };
    const canceled = await executor.execute(
      realRequest({ runtime: 'codex', binary: CODEX_BIN, env, signal: controller.signal, onSpawn: (pid) => (serverPid = pid) }),
    );
    expect(canceled).toMatchObject({ status: 'canceled', reason: 'canceled' });
    expect(logging.entries.some((e) => e.msg === 'interrupting the codex turn')).toBe(true);
    expect(logging.entries.some((e) => e.msg.startsWith('the codex turn did not stop'))).toBe(false);
    expect(await isRunning(serverPid)).toBe(true);

    api.respond = () => ({ kind: 'text', text: 'NEXT UNIT' });
    let nextPid = 0;
    const next = await executor.execute(realRequest({ runtime: 'codex', binary: CODEX_BIN, env, onSpawn: (pid) => (nextPid = pid) }));
    expect(next).toMatchObject({ status: 'succeeded', summary: 'NEXT UNIT' });
    expect(nextPid).toBe(serverPid);
    expect(pool.spawned).toBe(1);
  });
});
