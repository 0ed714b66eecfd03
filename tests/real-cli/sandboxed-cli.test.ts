import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LocalRuntimeExecutor } from '../../main/core/exec/executor';
import { commandWorks, probeIsolation, type IsolationTools } from '../../main/core/exec/isolation';
import { createCommandRunner } from '../../main/core/exec/process-runner';
import { testLogging } from '../helpers/test-logger';
import { callToolThenText, replyText, startAnthropicStub, type AnthropicStub } from '../stubs/anthropic-stub';
import { startMcpStub, type McpStub } from '../stubs/mcp-stub';
import { callFunctionThenText, startResponsesStub, type ResponsesStub } from '../stubs/openai-responses-stub';
import { CLAUDE_BIN, CODEX_BIN, claudeEnv, codexEnv, realRequest, tempDir } from './real-cli-env';

// The real claude and codex CLIs inside bubblewrap, against loopback stubs: a sandboxed turn
// still reaches the model and the control plane's MCP server (network shared), resumes
// its session, takes a prompt past the 128 KiB argument limit, and shows no prompt in `ps`.

const TOKEN = 'unit-mcp-token-sandbox-3e8d1c0b9a7f';
// bwrap installed is not enough: a kernel or container may forbid the namespaces it needs.
const tools: IsolationTools = await probeIsolation({ platform: process.platform, which: createCommandRunner().which, works: commandWorks });

/** Executors a test made: stopped after it, so no sandbox started ahead outlives the test. */
const started: LocalRuntimeExecutor[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((e) => e.stop()));
});

function sandboxedExecutor(workRoot: string, dataDir: string) {
  const logging = testLogging();
  const executor = new LocalRuntimeExecutor({
    workRoot,
    log: logging.log,
    isolation: { tools: () => Promise.resolve(tools), extraEnvAllow: () => [], ownConfig: () => false, hidden: [dataDir] },
  });
  started.push(executor);
  return { executor, logging };
}

/** Every command line on the machine right now (what any local user sees in `ps`). */
function allCommandLines(): string {
  return execFileSync('ps', ['-eo', 'args', '--no-headers'], { maxBuffer: 64 * 1024 * 1024 }).toString();
}

const skip = tools.level !== 'bubblewrap';

describe.sequential(`real CLIs under bubblewrap${skip ? ` (skipped: ${tools.note ?? 'no bubblewrap here'})` : ''}`, () => {
  let anthropic: AnthropicStub;
  let responses: ResponsesStub;
  let mcp: McpStub;
  let home: ReturnType<typeof tempDir>;
  let work: ReturnType<typeof tempDir>;
  let sessionId: string | undefined;

  beforeAll(async () => {
    if (skip) return;
    [anthropic, responses, mcp] = await Promise.all([startAnthropicStub(), startResponsesStub(), startMcpStub({ token: TOKEN })]);
    home = tempDir('sandbox-home');
    work = tempDir('sandbox-work');
  });
  afterAll(async () => {
    await Promise.all([anthropic?.close(), responses?.close(), mcp?.close()]);
    home?.remove();
    work?.remove();
  });

  const workRoot = () => path.join(work.dir, 'data', 'turns');

  it.skipIf(skip)('claude: a tool call through the MCP server and the answer, sandboxed; ps never shows the prompt', async () => {
    expect(tools.level).toBe('bubblewrap');
    anthropic.respond = callToolThenText('mcp__rost__report_progress', { message: 'in the box', percent: 10 }, 'SANDBOXED DONE');
    const { executor, logging } = sandboxedExecutor(workRoot(), path.join(work.dir, 'data'));
    const marker = `PROMPT-MARKER-${Date.now().toString(36)}`;
    let seenInPs: boolean | null = null;
    const outcome = await executor.execute(
      realRequest({
        runtime: 'claude',
        binary: CLAUDE_BIN,
        env: claudeEnv(home.dir, anthropic.url),
        prompt: `${marker}: report progress, then finish.`,
        mcp: { serverUrl: mcp.url, token: TOKEN },
        knownSecrets: [TOKEN],
        onSpawn: () => (seenInPs = allCommandLines().includes(marker)),
      }),
    );
    expect(outcome, outcome.summary).toMatchObject({ status: 'succeeded', summary: 'SANDBOXED DONE' });
    expect(seenInPs).toBe(false);
    expect(mcp.toolCalls).toEqual([{ name: 'report_progress', arguments: { message: 'in the box', percent: 10 }, token: TOKEN }]);
    expect(logging.entries.some((e) => e.msg === 'runtime started' && e.data?.isolation === 'bubblewrap')).toBe(true);
    sessionId = outcome.sessionId;
    // The turn's folder is gone at its end; only the sandbox started ahead for the next turn waits, until the executor stops.
    expect(readdirSync(workRoot()).filter((n) => n.startsWith('turn-') && !n.startsWith('turn-spare-'))).toEqual([]);
    await executor.stop();
    expect(readdirSync(workRoot()).filter((n) => n.startsWith('turn-'))).toEqual([]);
  });

  it.skipIf(skip)('claude: the next sandboxed turn resumes that session, with a 300 KiB prompt', async () => {
    expect(sessionId).toBeDefined();
    anthropic.respond = replyText('RESUMED IN THE BOX');
    const before = anthropic.requests.length;
    const { executor } = sandboxedExecutor(workRoot(), path.join(work.dir, 'data'));
    const big = `BIG-PROMPT ${'y'.repeat(300 * 1024)}`;
    const outcome = await executor.execute(
      realRequest({ runtime: 'claude', binary: CLAUDE_BIN, env: claudeEnv(home.dir, anthropic.url), prompt: big, resumeSessionId: sessionId ?? null }),
    );
    expect(outcome, outcome.summary).toMatchObject({ status: 'succeeded', summary: 'RESUMED IN THE BOX' });
    const sent = anthropic.requests
      .slice(before)
      .map((r) => r.raw)
      .join('');
    expect(sent).toContain('BIG-PROMPT');
    expect(sent).toContain('in the box'); // the first turn's tool call: the history came along
  });

  it.skipIf(skip)('codex: a tool call through the MCP server, sandboxed, its config generated from the operator\u2019s model choice', async () => {
    responses.respond = callFunctionThenText({ name: 'report_progress', namespace: 'mcp__rost', arguments: { message: 'codex boxed' } }, 'CODEX BOXED');
    const codexHome = tempDir('sandbox-codex-home');
    try {
      const { executor } = sandboxedExecutor(workRoot(), path.join(work.dir, 'data'));
      const calls = mcp.toolCalls.length;
      const outcome = await executor.execute(
        realRequest({
          runtime: 'codex',
          binary: CODEX_BIN,
          env: codexEnv(codexHome.dir, responses.baseUrl),
          mcp: { serverUrl: mcp.url, token: TOKEN },
          knownSecrets: [TOKEN],
        }),
      );
      expect(outcome, outcome.summary).toMatchObject({ status: 'succeeded', summary: 'CODEX BOXED' });
      expect(mcp.toolCalls.slice(calls)).toEqual([{ name: 'report_progress', arguments: { message: 'codex boxed' }, token: TOKEN }]);
    } finally {
      codexHome.remove();
    }
  });
});

describe.sequential(`codex's own shell inside bubblewrap${skip ? ' (skipped)' : ''}`, () => {
  it.skipIf(skip)('a command the model runs sees neither $HOME nor the unit token; codex\u2019s own sandbox still works nested', async () => {
    const responses = await startResponsesStub();
    const mcp = await startMcpStub({ token: TOKEN });
    const home = tempDir('sandbox-shell-home');
    const work = tempDir('sandbox-shell-work');
    try {
      const canary = `ssh-canary-${Date.now()}`;
      mkdirSync(path.join(home.dir, '.ssh'), { recursive: true });
      writeFileSync(path.join(home.dir, '.ssh', 'id_ed25519'), canary);
      const cmd = 'echo START; cat ~/.ssh/id_ed25519; env | grep -c ROST_MCP_TOKEN; echo END';
      responses.respond = callFunctionThenText({ name: 'exec_command', arguments: { cmd } }, 'SHELL DONE');
      const codexHome = path.join(home.dir, '.codex');
      mkdirSync(codexHome);
      const { executor } = sandboxedExecutor(path.join(work.dir, 'data', 'turns'), path.join(work.dir, 'data'));
      const outcome = await executor.execute(
        realRequest({
          runtime: 'codex',
          binary: CODEX_BIN,
          env: { ...codexEnv(codexHome, responses.baseUrl), HOME: home.dir },
          prompt: 'run it',
          mcp: { serverUrl: mcp.url, token: TOKEN },
          knownSecrets: [TOKEN],
        }),
      );
      expect(outcome, outcome.summary).toMatchObject({ status: 'succeeded', summary: 'SHELL DONE' });
      const followUp = responses.requests.map((r) => r.raw).find((raw) => raw.includes('function_call_output')) ?? '';
      // The command ran (exit 0), found no ssh key at ~ and no token in its environment. On a
      // mismatch the message shows what codex sent back (it failed once under three full loads).
      const at = followUp.indexOf('function_call_output');
      const sent = followUp.slice(at, at + 800).replaceAll(TOKEN, '[the unit token]');
      expect(followUp, sent).toMatch(
        /Process exited with code 0\\nOriginal token count: \d+\\nOutput:\\nSTART\\ncat: [^\\]*\.ssh\/id_ed25519: No such file or directory\\n0\\nEND/,
      );
      expect(followUp).not.toContain(canary);
      expect(followUp).not.toContain(TOKEN);
    } finally {
      await Promise.all([responses.close(), mcp.close()]);
      home.remove();
      work.remove();
    }
  });
});
