#!/usr/bin/env node
// A scripted `codex app-server`: JSON-RPC 2.0 lines on stdio, as codex 0.171.0 speaks them
// (see main/core/exec/codex-app-server/protocol.ts). The scenario comes from
// STUB_SCENARIO (JSON); every message received is appended to STUB_LOG (JSONL) so tests
// can check what the client sent. `app-server --help` prints a help text (support probe).
//
// Scenario fields:
//   rateLimits: RateLimitSnapshot sent as account/rateLimits/updated in every turn
//   turn: 'complete' | 'hang' | 'usage-limit' | 'approval' | 'closeout-on-nudge' | 'hang-then-resume' | 'live'
//         ('live': the answer streams as deltas `step <i> printed-at=<epoch ms>` every 150 ms,
//         five of them, then a command with its output and exit code, then the turn hangs)
//   ignoreInterrupt: true → turn/interrupt is acknowledged but the turn never ends
//   exitAfterTurn: true → the process exits right after the first turn/completed
//   answer: the agent message text
//   writeFile: { name, text } → the first turn of a thread writes that file in the thread's cwd
//   noise: true → each turn also prints a line that is not JSON, a JSON line that is not
//          JSON-RPC, and a server request of a method no client knows
// STUB_ENV_FILE (a file name): at start the server writes its environment and working
// folder there, relative to its working folder (inside a sandbox that is one it may write).
import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

if (process.argv.includes('--version')) {
  process.stdout.write('codex-cli 0.171.0\n');
  process.exit(0);
}
if (process.argv.includes('--help')) {
  process.stdout.write('[experimental] Run the app server or related tooling\n  --listen <URL>\n');
  process.exit(0);
}

if (process.env.STUB_ENV_FILE) writeFileSync(process.env.STUB_ENV_FILE, JSON.stringify({ env: process.env, cwd: process.cwd() }));
// CODEX_STUB_SCENARIO: the same, for a host whose turns get only allowlisted variables
// (CODEX_* pass, as a real codex's own would; STUB_* is given only as an explicit runtime env).
const scenario = JSON.parse(process.env.STUB_SCENARIO || process.env.CODEX_STUB_SCENARIO || '{}');
const logFile = process.env.STUB_LOG || null;
let threads = 0;
let turns = 0;
const running = new Map(); // turnId -> { threadId, kind }
const threadCwd = new Map(); // threadId -> the cwd thread/start gave
const waiting = new Map(); // server request id -> resolve
let nextServerId = 1000;

const send = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);
const note = (method, params) => send({ method, params });
const record = (msg) => logFile && appendFileSync(logFile, `${JSON.stringify(msg)}\n`);
const ask = (method, params) =>
  new Promise((resolve) => {
    const id = nextServerId++;
    waiting.set(id, resolve);
    send({ id, method, params });
  });

function tokenUsage(threadId, turnId, n) {
  const b = { totalTokens: 44 * n, inputTokens: 33 * n, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 11 * n, reasoningOutputTokens: 0 };
  note('thread/tokenUsage/updated', { threadId, turnId, tokenUsage: { total: b, last: { ...b, totalTokens: 44 }, modelContextWindow: 200000 } });
}

function complete(threadId, turnId, status = 'completed', error = null) {
  running.delete(turnId);
  note('turn/completed', { threadId, turn: { id: turnId, items: [], status, error, startedAt: 1, completedAt: 2, durationMs: 1 } });
  if (scenario.exitAfterTurn) setImmediate(() => process.exit(3));
}

function agentMessage(threadId, turnId, text) {
  note('item/completed', { threadId, turnId, item: { type: 'agentMessage', id: `msg-${turnId}`, text }, completedAtMs: 1 });
}

async function startTurn(threadId, turnId, text) {
  note('turn/started', { threadId, turn: { id: turnId, items: [], status: 'inProgress', error: null } });
  // An unknown notification the client must ignore.
  note('thread/prediction/updated', { threadId, whatever: true });
  if (scenario.noise) {
    process.stdout.write('warning: this is not JSON\n');
    process.stdout.write('{"hello":"world"}\n');
    record({ unknownRequestReply: await ask('future/unknownRequest', { threadId }) });
  }
  if (scenario.rateLimits) note('account/rateLimits/updated', { rateLimits: scenario.rateLimits });
  const kind = scenario.turn || 'complete';
  const nudge = /closeout/i.test(text);
  const resume = /Resume the interrupted work/.test(text);
  running.set(turnId, { threadId, kind });
  tokenUsage(threadId, turnId, turns);
  if (scenario.writeFile && !nudge && !resume) {
    writeFileSync(path.join(threadCwd.get(threadId) ?? process.cwd(), scenario.writeFile.name), scenario.writeFile.text);
    note('item/completed', { threadId, turnId, item: { type: 'fileChange', id: `fc-${turnId}` }, completedAtMs: 1 });
  }
  if (kind === 'live') return streamLive(threadId, turnId);
  if (kind === 'hang' || (kind === 'hang-then-resume' && !resume)) return;
  if (kind === 'usage-limit') {
    return complete(threadId, turnId, 'failed', {
      message: "You've hit your usage limit. Try again in 2 hours 14 minutes.",
      codexErrorInfo: 'usageLimitExceeded',
    });
  }
  if (kind === 'approval') {
    const reply = await ask('item/commandExecution/requestApproval', { threadId, turnId, itemId: 'cmd-1', command: 'rm -rf /' });
    agentMessage(threadId, turnId, `approval answer: ${JSON.stringify(reply)}`);
    return complete(threadId, turnId);
  }
  if (kind === 'closeout-on-nudge' && nudge) {
    // The closeout comes a while after the nudge turn started: a client that does not wait misses it.
    await new Promise((r) => setTimeout(r, 150));
    const reply = await ask('item/tool/call', {
      threadId,
      turnId,
      callId: 'call-1',
      namespace: null,
      tool: 'sechroom_closeout',
      arguments: { terminal_status: 'completed', summary: 'closed out on the nudge' },
    });
    agentMessage(threadId, turnId, `closeout reply: ${reply.contentItems?.[0]?.text}`);
    return complete(threadId, turnId);
  }
  agentMessage(threadId, turnId, resume ? 'resumed and done' : (scenario.answer ?? 'STUB DONE'));
  complete(threadId, turnId);
}

async function streamLive(threadId, turnId) {
  const itemId = `msg-${turnId}`;
  note('item/started', { threadId, turnId, item: { type: 'agentMessage', id: itemId, text: '' }, startedAtMs: Date.now() });
  for (let step = 1; step <= 5; step++) {
    await new Promise((r) => setTimeout(r, 150));
    note('item/agentMessage/delta', { threadId, turnId, itemId, delta: `step ${step} printed-at=${Date.now()}\n` });
  }
  note('item/completed', { threadId, turnId, item: { type: 'agentMessage', id: itemId, text: 'steps' }, completedAtMs: Date.now() });
  const cmd = { type: 'commandExecution', id: `cmd-${turnId}`, command: 'npm test', cwd: '/w', status: 'inProgress', aggregatedOutput: null, exitCode: null };
  note('item/started', { threadId, turnId, item: cmd, startedAtMs: Date.now() });
  note('item/commandExecution/outputDelta', { threadId, turnId, itemId: cmd.id, delta: 'ok 1 - exports\n' });
  note('item/completed', {
    threadId,
    turnId,
    item: { ...cmd, status: 'completed', aggregatedOutput: 'ok 1 - exports\n', exitCode: 0 },
    completedAtMs: Date.now(),
  });
}

let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
    const line = buffer.slice(0, nl).trim();
    buffer = buffer.slice(nl + 1);
    if (!line) continue;
    const msg = JSON.parse(line);
    record(msg);
    if (msg.method === undefined) {
      waiting.get(msg.id)?.(msg.result ?? msg.error);
      waiting.delete(msg.id);
      continue;
    }
    const reply = (result) => send({ id: msg.id, result });
    switch (msg.method) {
      case 'initialize':
        reply({ userAgent: 'stub/0.171.0', codexHome: '/tmp', platformFamily: 'unix', platformOs: 'linux' });
        break;
      case 'initialized':
        break;
      case 'thread/start': {
        const id = `thread-${++threads}`;
        threadCwd.set(id, msg.params?.cwd ?? process.cwd());
        reply({ thread: { id }, model: 'stub-model' });
        note('thread/started', { thread: { id } });
        break;
      }
      case 'thread/resume':
        reply({ thread: { id: msg.params.threadId }, model: 'stub-model' });
        break;
      case 'turn/start': {
        const turnId = `turn-${++turns}`;
        reply({ turn: { id: turnId, items: [], status: 'inProgress', error: null } });
        void startTurn(msg.params.threadId, turnId, msg.params.input?.[0]?.text ?? '');
        break;
      }
      case 'turn/interrupt': {
        reply({});
        const t = running.get(msg.params?.turnId);
        if (t && !scenario.ignoreInterrupt) complete(t.threadId, msg.params.turnId, 'interrupted');
        break;
      }
      case 'account/rateLimits/read':
        if (scenario.rateLimits) reply({ rateLimits: scenario.probeRateLimits ?? scenario.rateLimits });
        else send({ id: msg.id, error: { code: -32600, message: 'codex account authentication required to read rate limits' } });
        break;
      default:
        send({ id: msg.id, error: { code: -32601, message: `unknown method ${msg.method}` } });
    }
  }
});
process.stdin.on('end', () => process.exit(0));
