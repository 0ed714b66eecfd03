import path from 'node:path';
import type { TranscriptLine } from '../../shared/transcript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRunning, snapshotProcesses, treeMembers } from '../../main/core/exec/process-tree';
import { startMcpStub, type McpStub } from '../stubs/mcp-stub';
import { callFunctionThenText, startResponsesStub, STUB_RESPONSES_USAGE, type ResponsesStub } from '../stubs/openai-responses-stub';
import { CODEX_BIN, codexEnv, realExecutor, realRequest, tempDir } from './real-cli-env';
import { cliUnavailable, suiteTitle } from '../helpers/environment';

// The real `codex` CLI (dev dependency) run by the executor against a Responses stub
// (CODEX_HOME config.toml) and the MCP stub. The stub is always up before codex starts:
// with an unreachable model codex retries forever (REAL-RUNTIMES.md).

const TOKEN = 'unit-mcp-token-codex-8e2d4a6c0f1b';

const unavailable = cliUnavailable('codex', CODEX_BIN);

describe.sequential(suiteTitle('real codex CLI', unavailable), { skip: unavailable !== null }, () => {
  let api: ResponsesStub;
  let mcp: McpStub;
  let home: ReturnType<typeof tempDir>;
  let work: ReturnType<typeof tempDir>;
  let env: Record<string, string>;

  beforeAll(async () => {
    api = await startResponsesStub();
    mcp = await startMcpStub({ token: TOKEN });
    home = tempDir('codex-home');
    work = tempDir('codex-work');
    env = codexEnv(home.dir, api.baseUrl);
  });

  afterAll(async () => {
    await Promise.all([api?.close(), mcp?.close()]);
    home?.remove();
    work?.remove();
  });

  it('turn execution: the model calls the MCP tool with the unit token (bearer from env)', async () => {
    api.respond = callFunctionThenText({ name: 'report_progress', namespace: 'mcp__rost', arguments: { message: 'codex halfway' } }, 'CODEX DONE');
    const { executor } = realExecutor(path.join(work.dir, 'runtime'));
    const lines: TranscriptLine[] = [];
    const outcome = await executor.execute(
      realRequest({
        runtime: 'codex',
        binary: CODEX_BIN,
        env,
        mcp: { serverUrl: mcp.url, token: TOKEN },
        knownSecrets: [TOKEN],
        onTranscript: (l) => lines.push(l),
      }),
    );
    expect(outcome).toMatchObject({ status: 'succeeded', reason: 'exit', exitCode: 0, summary: 'CODEX DONE' });
    // codex exec --json items: the tool call and the answer, as transcript lines.
    expect(lines.map((l) => `${l.kind}:${l.text}`)).toEqual(expect.arrayContaining(['tool:rost.report_progress', 'text:CODEX DONE']));
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
    expect(mcp.toolCalls).toEqual([{ name: 'report_progress', arguments: { message: 'codex halfway' }, token: TOKEN }]);
    expect(mcp.unauthorized).toBe(0);
    // codex sums the turn's two model requests.
    expect(outcome.usage).toEqual({ input_tokens: 2 * STUB_RESPONSES_USAGE.input_tokens, output_tokens: 2 * STUB_RESPONSES_USAGE.output_tokens });
    expect(outcome.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    // The tool was offered under the server's namespace.
    expect(api.requests[0]?.raw).toContain('"mcp__rost"');
  });

  it('cancel while the model hangs: the node wrapper and the native codex both die', async () => {
    const controller = new AbortController();
    const seen: { tree: number[]; abortedAt: number } = { tree: [], abortedAt: 0 };
    let rootPid = 0;
    let snapshotTaken: Promise<void> = Promise.resolve();
    api.respond = () => {
      // The request reached the model: the whole tree is up. Note it, then cancel.
      snapshotTaken = snapshotProcesses().then((all) => {
        seen.tree = treeMembers(all, rootPid, false);
        seen.abortedAt = performance.now();
        controller.abort();
      });
      return { kind: 'hang' };
    };
    const { executor } = realExecutor(path.join(work.dir, 'runtime'));
    const outcome = await executor.execute(realRequest({ runtime: 'codex', binary: CODEX_BIN, env, signal: controller.signal, onSpawn: (p) => (rootPid = p) }));
    await snapshotTaken;
    console.info(`codex cancel → tree dead: ${(performance.now() - seen.abortedAt).toFixed(0)} ms, tree was ${seen.tree.length} processes`);
    expect(outcome).toMatchObject({ status: 'canceled', reason: 'canceled' });
    expect(seen.tree).toContain(rootPid);
    expect(seen.tree.length).toBeGreaterThanOrEqual(1);
    for (const pid of seen.tree) expect(await isRunning(pid)).toBe(false);
  });
});
