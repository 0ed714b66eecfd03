import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRuntimeExecutor } from '../../main/core/exec/executor';
import { ENVIRONMENT_ONLY } from '../../main/core/exec/isolation';
import { testLogging } from '../helpers/test-logger';
import { replyText, startAnthropicStub, type AnthropicStub } from '../stubs/anthropic-stub';
import { respondText, startResponsesStub, type ResponsesStub } from '../stubs/openai-responses-stub';
import { CLAUDE_BIN, CODEX_BIN, claudeEnv, codexEnv, realRequest, tempDir } from './real-cli-env';

// The operator's own agent configuration stays out of unattended turns, even without an OS
// sandbox: the real CLIs, with an operator HOME full of instructions, settings and MCP
// servers, send none of it to the model. With "use my own settings" on, they do: proof
// that the markers would be seen.

const CLAUDE_MARK = 'OPERATOR-CLAUDE-MEMORY-7f3a';
const CODEX_MARK = 'OPERATOR-CODEX-AGENTS-91be';

describe.sequential('the operator’s own claude and codex configuration', () => {
  let anthropic: AnthropicStub;
  let responses: ResponsesStub;
  let home: ReturnType<typeof tempDir>;
  let work: ReturnType<typeof tempDir>;

  beforeAll(async () => {
    [anthropic, responses] = await Promise.all([startAnthropicStub(), startResponsesStub()]);
    home = tempDir('operator-home');
    work = tempDir('operator-work');
    // claude: user memory and user settings.
    mkdirSync(path.join(home.dir, '.claude'), { recursive: true });
    writeFileSync(path.join(home.dir, '.claude', 'CLAUDE.md'), `Always mention ${CLAUDE_MARK}.\n`);
    writeFileSync(path.join(home.dir, '.claude', 'settings.json'), JSON.stringify({ env: { OPERATOR_SETTING: CLAUDE_MARK } }));
  });
  afterAll(async () => {
    await Promise.all([anthropic?.close(), responses?.close()]);
    home?.remove();
    work?.remove();
  });

  const executor = (ownConfig: boolean) =>
    new LocalRuntimeExecutor({
      workRoot: path.join(work.dir, ownConfig ? 'own' : 'clean'),
      log: testLogging().log,
      isolation: { tools: async () => ENVIRONMENT_ONLY, extraEnvAllow: () => [], ownConfig: () => ownConfig, hidden: [] },
    });

  it('claude: its memory (~/.claude/CLAUDE.md) reaches the model only with “use my own settings” on', async () => {
    anthropic.respond = replyText('OK');
    for (const own of [false, true]) {
      const before = anthropic.requests.length;
      const outcome = await executor(own).execute(
        realRequest({ runtime: 'claude', binary: CLAUDE_BIN, env: claudeEnv(home.dir, anthropic.url), prompt: 'hello' }),
      );
      expect(outcome, outcome.summary).toMatchObject({ status: 'succeeded' });
      const sent = anthropic.requests
        .slice(before)
        .map((r) => r.raw)
        .join('\n');
      expect(sent.includes(CLAUDE_MARK), `own=${own}`).toBe(own);
    }
  });

  it('codex: its AGENTS.md in CODEX_HOME reaches the model only with “use my own settings” on', async () => {
    responses.respond = respondText('OK');
    const codexHome = tempDir('operator-codex-home');
    try {
      const env = codexEnv(codexHome.dir, responses.baseUrl);
      writeFileSync(path.join(codexHome.dir, 'AGENTS.md'), `Always mention ${CODEX_MARK}.\n`);
      for (const own of [false, true]) {
        const before = responses.requests.length;
        const outcome = await executor(own).execute(realRequest({ runtime: 'codex', binary: CODEX_BIN, env, prompt: 'hello' }));
        expect(outcome, outcome.summary).toMatchObject({ status: 'succeeded' });
        const sent = responses.requests
          .slice(before)
          .map((r) => r.raw)
          .join('\n');
        expect(sent.includes(CODEX_MARK), `own=${own}`).toBe(own);
      }
    } finally {
      codexHome.remove();
    }
  });
});
