import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRuntimeExecutor } from '../../main/core/exec/executor';
import { CredentialBroker, commandWorks, probeIsolation, type IsolationTools } from '../../main/core/exec/isolation';
import { createCommandRunner } from '../../main/core/exec/process-runner';
import { testLogging } from '../helpers/test-logger';
import { replyText, startAnthropicStub } from '../stubs/anthropic-stub';
import { callFunctionThenText, startResponsesStub, type ResponsesStub } from '../stubs/openai-responses-stub';
import { CLAUDE_BIN, CODEX_BIN, claudeEnv, codexEnv, realRequest, tempDir } from './real-cli-env';

// A prompt-injected model on the real CLIs, sandboxed (bubblewrap), against loopback model
// stubs: the model API key is the operator's, and the turn must never hold it. With the
// credential broker the runtime holds a per-turn token and the stub still gets the real
// key; without it (the control run) the same probe finds the key, so the test can fail.

const tools: IsolationTools = await probeIsolation({ platform: process.platform, which: createCommandRunner().which, works: commandWorks });
const skip = tools.level !== 'bubblewrap';

function executor(workRoot: string, dataDir: string, broker: CredentialBroker | null) {
  const logging = testLogging();
  const exec = new LocalRuntimeExecutor({
    workRoot,
    log: logging.log,
    isolation: {
      tools: () => Promise.resolve(tools),
      extraEnvAllow: () => [],
      ownConfig: () => false,
      hidden: [dataDir],
      ...(broker ? { broker } : {}),
      // The default network: a namespace of its own, out through the egress bridge (the broker's port included).
    },
  });
  return { exec, logging };
}

/** What a hostile command looks for: every process's environment it can read, and the turn's auth.json. */
const PROBE = [
  'echo START',
  "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ 2>/dev/null; done | grep -E '^(STUB_API_KEY|CODEX_API_KEY|OPENAI_API_KEY)=' | sort -u",
  'for f in ../codex-home/auth.json ../../codex-home/auth.json; do cat $f 2>/dev/null; done',
  'echo END',
].join('; ');

/** What the model's command printed, as codex sent it back to the model. */
function commandOutput(requests: readonly { body: { input: readonly Record<string, unknown>[] } }[]): string {
  for (const request of requests) {
    const item = request.body.input.find((i) => i.type === 'function_call_output');
    if (item) return typeof item.output === 'string' ? item.output : JSON.stringify(item.output);
  }
  return '';
}

/** Every process environment on this machine that holds `secret` (the turn's processes are ours). */
function environsHolding(secret: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'latin1').includes(secret)) found.push(readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0/g, ' '));
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

describe.sequential(`model API keys stay on the host${skip ? ` (skipped: ${tools.note ?? 'no bubblewrap here'})` : ''}`, () => {
  let responses: ResponsesStub;
  let broker: CredentialBroker;
  beforeAll(async () => {
    if (skip) return;
    responses = await startResponsesStub();
    broker = new CredentialBroker({ log: testLogging().log });
  });
  afterAll(async () => {
    await Promise.all([responses?.close(), broker?.close()]);
  });

  async function codexTurn(withBroker: boolean, signIn: 'env-key' | 'stored-key', secret: string) {
    const home = tempDir('broker-home');
    const work = tempDir('broker-work');
    let exec: LocalRuntimeExecutor | undefined;
    try {
      let env: Record<string, string>;
      if (signIn === 'env-key') {
        env = codexEnv(home.dir, responses.baseUrl);
        env.STUB_API_KEY = secret;
      } else {
        // An API-key sign-in: the key in auth.json, the built-in provider pointed at the stub.
        writeFileSync(path.join(home.dir, 'config.toml'), `model = "stub-model"\nopenai_base_url = ${JSON.stringify(responses.baseUrl)}\n`);
        writeFileSync(path.join(home.dir, 'auth.json'), JSON.stringify({ OPENAI_API_KEY: secret, tokens: null }));
        env = { HOME: home.dir, CODEX_HOME: home.dir };
      }
      const before = responses.requests.length;
      const probe = callFunctionThenText({ name: 'exec_command', arguments: { cmd: PROBE } }, 'PROBED');
      // While codex waits for the model, look at every process on the machine.
      const holders: string[][] = [];
      responses.respond = (req) => {
        holders.push(environsHolding(secret));
        return probe(req);
      };
      exec = executor(path.join(work.dir, 'data', 'turns'), path.join(work.dir, 'data'), withBroker ? broker : null).exec;
      const outcome = await exec.execute(realRequest({ runtime: 'codex', binary: CODEX_BIN, env, prompt: 'probe' }));
      // Left now: at most the grant of the sandbox started ahead for the next turn, never this turn's.
      const grantsAfterTurn = broker.size;
      await exec.stop();
      exec = undefined;
      const requests = responses.requests.slice(before);
      const followUp = commandOutput(requests);
      return {
        outcome,
        requests,
        followUp,
        holders: holders.flat(),
        grantsAfterTurn,
        operatorAuth: signIn === 'stored-key' ? readFileSync(path.join(home.dir, 'auth.json'), 'utf8') : null,
      };
    } finally {
      await exec?.stop();
      home.remove();
      work.remove();
    }
  }

  it.skipIf(skip)('control run, no broker: codex holds the provider key in its environment, and a command reads the stored key', async () => {
    const provider = `sk-control-env-${Date.now()}`;
    const envRun = await codexTurn(false, 'env-key', provider);
    expect(envRun.outcome, envRun.outcome.summary).toMatchObject({ status: 'succeeded', summary: 'PROBED' });
    expect(envRun.holders.some((cmd) => cmd.includes('codex'))).toBe(true);
    const stored = `sk-control-stored-${Date.now()}`;
    const storedRun = await codexTurn(false, 'stored-key', stored);
    expect(storedRun.followUp).toContain(stored);
  });

  it.skipIf(skip)("codex, a provider's env_key: the model API gets the real key; no process of the turn holds it, only a token", async () => {
    const secret = `sk-provider-${Date.now()}`;
    const { outcome, requests, holders, grantsAfterTurn } = await codexTurn(true, 'env-key', secret);
    expect(outcome, outcome.summary).toMatchObject({ status: 'succeeded', summary: 'PROBED' });
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(requests.every((r) => r.authorization === `Bearer ${secret}`)).toBe(true);
    expect(holders).toEqual([]);
    expect(outcome.summary).not.toContain(secret);
    expect(grantsAfterTurn).toBeLessThanOrEqual(1); // the turn's revoked when it ended; a spare's may wait
    expect(broker.size).toBe(0); // and the spare's once the executor stopped
  });

  it.skipIf(skip)("codex, an API-key sign-in: the turn's auth.json copy holds a token; the operator's file is unchanged", async () => {
    const secret = `sk-stored-${Date.now()}`;
    const { outcome, requests, followUp, holders, operatorAuth } = await codexTurn(true, 'stored-key', secret);
    expect(outcome, outcome.summary).toMatchObject({ status: 'succeeded', summary: 'PROBED' });
    expect(holders).toEqual([]);
    expect(requests.every((r) => r.authorization === `Bearer ${secret}`)).toBe(true);
    expect(followUp).toMatch(/"OPENAI_API_KEY":\s*\\?"rt-broker-[\w-]{43}/);
    expect(followUp).not.toContain(secret);
    expect(JSON.parse(operatorAuth ?? '{}')).toEqual({ OPENAI_API_KEY: secret, tokens: null });
  });

  it.skipIf(skip)('claude, ANTHROPIC_API_KEY: the model API gets the real key; no process of the turn holds it while it runs', async () => {
    const anthropic = await startAnthropicStub();
    const home = tempDir('broker-claude-home');
    const work = tempDir('broker-claude-work');
    const secret = `sk-ant-api03-operator-${Date.now()}`;
    try {
      const holders: string[][] = [];
      const answer = replyText('CLAUDE DONE');
      // While claude waits for the model, look at every process on the machine.
      anthropic.respond = (req) => {
        holders.push(environsHolding(secret));
        return answer(req);
      };
      const { exec } = executor(path.join(work.dir, 'data', 'turns'), path.join(work.dir, 'data'), broker);
      const env = { ...claudeEnv(home.dir, anthropic.url), ANTHROPIC_API_KEY: secret };
      // The control run first: without the broker, claude's own environment holds the key.
      const control = executor(path.join(work.dir, 'control', 'turns'), path.join(work.dir, 'control'), null);
      await control.exec.execute(realRequest({ runtime: 'claude', binary: CLAUDE_BIN, env, prompt: 'hello' }));
      expect(holders.flat().some((cmd) => cmd.includes('claude'))).toBe(true);
      holders.length = 0;
      anthropic.requests.length = 0;
      const outcome = await exec.execute(realRequest({ runtime: 'claude', binary: CLAUDE_BIN, env, prompt: 'hello' }));
      expect(outcome, outcome.summary).toMatchObject({ status: 'succeeded', summary: 'CLAUDE DONE' });
      expect(anthropic.requests.length).toBeGreaterThanOrEqual(1);
      expect(anthropic.requests.every((r) => r.apiKey === secret)).toBe(true);
      expect(holders.length).toBeGreaterThanOrEqual(1);
      expect(holders.flat()).toEqual([]);
    } finally {
      await anthropic.close();
      home.remove();
      work.remove();
    }
  });
});
