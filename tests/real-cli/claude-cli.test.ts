import { readdirSync } from 'node:fs';
import type { TranscriptLine } from '../../shared/transcript';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callToolThenText, replyText, startAnthropicStub, STUB_USAGE, type AnthropicStub } from '../stubs/anthropic-stub';
import { startMcpStub, type McpStub } from '../stubs/mcp-stub';
import { CLAUDE_BIN, claudeEnv, realExecutor, realRequest, tempDir } from './real-cli-env';
import { cliUnavailable, suiteTitle } from '../helpers/environment';

// The real `claude` CLI (dev dependency) run by the executor against loopback stubs: the
// model stub scripts the turn, the MCP stub records tool calls and the bearer they carried.
// Serial on purpose: turn 2 resumes turn 1's session.

const TOKEN = 'unit-mcp-token-claude-5c1f0e9a7b3d';
const TOOL = 'mcp__rost__report_progress';

const unavailable = cliUnavailable('claude', CLAUDE_BIN);

describe.sequential(suiteTitle('real claude CLI', unavailable), { skip: unavailable !== null }, () => {
  let api: AnthropicStub;
  let mcp: McpStub;
  let home: ReturnType<typeof tempDir>;
  let work: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  let firstSessionId: string | undefined;

  beforeAll(async () => {
    api = await startAnthropicStub();
    mcp = await startMcpStub({ token: TOKEN });
    home = tempDir('claude-home');
    work = tempDir('claude-work');
    env = claudeEnv(home.dir, api.url);
  });

  afterAll(async () => {
    await Promise.all([api?.close(), mcp?.close()]);
    home?.remove();
    work?.remove();
  });

  const executor = () => realExecutor(path.join(work.dir, 'runtime'));

  it('turn execution: the model calls report_progress through the MCP config with the unit token', async () => {
    api.respond = callToolThenText(TOOL, { message: 'halfway there', percent: 50 }, 'TURN ONE DONE');
    const { executor: ex } = executor();
    let pid = 0;
    const lines: TranscriptLine[] = [];
    const requestsAtToolLine: number[] = [];
    const outcome = await ex.execute(
      realRequest({
        runtime: 'claude',
        binary: CLAUDE_BIN,
        env,
        prompt: 'FIRST-TURN-MARKER: report progress, then finish.',
        mcp: { serverUrl: mcp.url, token: TOKEN },
        knownSecrets: [TOKEN],
        onSpawn: (p) => (pid = p),
        onTranscript: (line) => {
          lines.push(line);
          if (line.kind === 'tool') requestsAtToolLine.push(api.requests.filter((r) => r.path.startsWith('/v1/messages')).length);
        },
      }),
    );
    expect(outcome).toMatchObject({ status: 'succeeded', reason: 'exit', exitCode: 0, summary: 'TURN ONE DONE' });
    // stream-json: the tool call showed while the turn ran (before claude asked the model for its answer), then the answer.
    expect(lines.map((l) => `${l.kind}:${l.text}`)).toEqual(
      expect.arrayContaining([`tool:${TOOL} {"message":"halfway there","percent":50}`, 'text:TURN ONE DONE']),
    );
    expect(requestsAtToolLine).toEqual([1]);
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
    expect(pid).toBeGreaterThan(0);
    expect(mcp.toolCalls).toEqual([{ name: 'report_progress', arguments: { message: 'halfway there', percent: 50 }, token: TOKEN }]);
    expect(mcp.unauthorized).toBe(0);
    expect(mcp.requests.every((r) => r.token === TOKEN)).toBe(true);
    // Two model requests (tool_use, then the answer after the tool_result).
    expect(outcome.usage).toMatchObject({ input_tokens: 2 * STUB_USAGE.input_tokens, output_tokens: 2 * STUB_USAGE.output_tokens });
    expect(outcome.usage?.cost_usd).toBeGreaterThanOrEqual(0);
    expect(outcome.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(outcome.summary).not.toContain(TOKEN);
    expect(readdirSync(path.join(work.dir, 'runtime')).filter((n) => n.startsWith('turn-'))).toEqual([]);
    firstSessionId = outcome.sessionId;
  });

  it('a second turn resumes the first session and sends its history', async () => {
    expect(firstSessionId).toBeDefined();
    api.respond = replyText('TURN TWO DONE');
    const before = api.requests.length;
    const { executor: ex } = executor();
    const outcome = await ex.execute(
      realRequest({
        runtime: 'claude',
        binary: CLAUDE_BIN,
        env,
        prompt: 'SECOND-TURN-MARKER: anything else?',
        mcp: { serverUrl: mcp.url, token: TOKEN },
        resumeSessionId: firstSessionId ?? null,
        knownSecrets: [TOKEN],
      }),
    );
    expect(outcome).toMatchObject({ status: 'succeeded', summary: 'TURN TWO DONE' });
    expect(outcome.sessionId).toBeDefined();
    const sent = api.requests
      .slice(before)
      .map((r) => r.raw)
      .join('\n');
    expect(sent).toContain('SECOND-TURN-MARKER');
    expect(sent).toContain('FIRST-TURN-MARKER');
    expect(sent).toContain('TURN ONE DONE');
  });

  it('work order: text output is the summary', async () => {
    api.respond = replyText('WORK ORDER DONE');
    const { executor: ex } = executor();
    const outcome = await ex.execute(
      realRequest({ runtime: 'claude', binary: CLAUDE_BIN, env, kind: 'work_order', mcp: { serverUrl: mcp.url, token: TOKEN }, knownSecrets: [TOKEN] }),
    );
    expect(outcome).toMatchObject({ status: 'succeeded', reason: 'exit', summary: 'WORK ORDER DONE' });
    expect(outcome.sessionId).toBeUndefined();
    expect(outcome.usage).toBeUndefined();
  });

  it('an API error is is_error: true → failed runtime_error', async () => {
    api.respond = () => ({ kind: 'http_error', status: 400, message: 'stub refuses this request' });
    const { executor: ex } = executor();
    const outcome = await ex.execute(realRequest({ runtime: 'claude', binary: CLAUDE_BIN, env }));
    expect(outcome).toMatchObject({ status: 'failed', reason: 'runtime_error' });
    expect(outcome.summary).toContain('stub refuses this request');
  });
});
