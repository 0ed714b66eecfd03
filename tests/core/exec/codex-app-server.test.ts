import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../../main/core/base/ports';
import { isRunning } from '../../../main/core/exec/process-tree';
import type { AppServerConnection } from '../../../main/core/exec/codex-app-server/connection';
import { CloseoutCollector, sechroomToolSet } from '../../../main/core/planes/sechroom/closeout-tools';
import { AppServerPool } from '../../../main/core/exec/codex-app-server/server-pool';
import { runAppServerTurn, type AppServerTurnSpec } from '../../../main/core/exec/codex-app-server/turn-runner';
import { LocalRuntimeExecutor } from '../../../main/core/exec/executor';
import type { RateLimitReading } from '../../../shared/usage';
import { FakeClock } from '../../helpers/fake-clock';
import { testLogging } from '../../helpers/test-logger';

// The app-server driver against a scripted app-server (tests/stubs/codex-app-server-stub.mjs)
// for the edges the real codex cannot be made to show offline. Each seed defect of
// sechroom-protocol.md B15.6–9 has a test here that the seed's driver would fail.

const STUB = fileURLToPath(new URL('../../stubs/codex-app-server-stub.mjs', import.meta.url));

interface Sent {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
}

describe('codex app-server driver (scripted server)', () => {
  let dir: string;
  let logFile: string;
  let pools: AppServerPool[];

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'rt-appserver-'));
    logFile = path.join(dir, 'sent.jsonl');
    writeFileSync(logFile, '');
    pools = [];
  });

  afterEach(async () => {
    await Promise.all(pools.map((p) => p.stopAll()));
    rmSync(dir, { recursive: true, force: true });
  });

  const sent = (): Sent[] =>
    readFileSync(logFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Sent);

  function pool(clock: Clock = systemClock): AppServerPool {
    const p = new AppServerPool({ log: testLogging().log, clock, clientVersion: '9.9.9', killGraceMs: 300 });
    pools.push(p);
    return p;
  }

  const specFor = (scenario: Record<string, unknown>) => ({
    command: process.execPath,
    args: [STUB, 'app-server'],
    cwd: dir,
    env: { ...process.env, STUB_SCENARIO: JSON.stringify(scenario), STUB_LOG: logFile },
  });

  function turn(connection: AppServerConnection, p: AppServerPool, over: Partial<AppServerTurnSpec> = {}) {
    return runAppServerTurn({
      connection,
      cwd: dir,
      prompt: 'do the work',
      developerInstructions: 'You are a factory worker.',
      sandbox: 'workspace-write',
      timeoutMs: 30_000,
      signal: new AbortController().signal,
      clock: systemClock,
      log: testLogging().log,
      kill: () => p.kill(connection),
      ...over,
    });
  }

  it('initializes with the initialized notification, starts the thread as asked, reads the answer and the tokens; no listener outlives a turn (B15.6, B15.9, B15.13)', async () => {
    const p = pool();
    const spec = specFor({ answer: 'ALL DONE' });
    const results = [];
    for (let i = 0; i < 3; i++) {
      const connection = await p.acquire(spec);
      results.push(await turn(connection, p));
      expect(connection.subscriberCount).toBe(0);
      expect(connection.pendingCount).toBe(0);
    }
    expect(p.spawned).toBe(1);
    expect(results.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    // The seed never assigned the last agent message (B15.6).
    expect(results[0]?.lastAgentMessage).toBe('ALL DONE');
    expect(results[2]?.tokens).toMatchObject({ inputTokens: 99, outputTokens: 33, contextUsed: 44, contextWindow: 200000, modelId: 'stub-model' });

    const methods = sent().map((m) => m.method);
    expect(methods.slice(0, 3)).toEqual(['initialize', 'initialized', 'thread/start']);
    const init = sent()[0];
    expect(init?.params).toMatchObject({ clientInfo: { name: 'runner-tray', version: '9.9.9' }, capabilities: { experimentalApi: true } });
    expect(sent().find((m) => m.method === 'thread/start')?.params).toMatchObject({
      cwd: dir,
      approvalPolicy: 'never',
      sandbox: 'workspace-write',
      developerInstructions: 'You are a factory worker.',
    });
    expect(sent().find((m) => m.method === 'turn/start')?.params).toMatchObject({ input: [{ type: 'text', text: 'do the work' }] });
  });

  it('lines that are not JSON-RPC and requests of unknown methods are logged and ignored; the turn goes on', async () => {
    const p = pool();
    const connection = await p.acquire(specFor({ noise: true, answer: 'fine' }));
    const result = await turn(connection, p);
    expect(result).toMatchObject({ status: 'completed', lastAgentMessage: 'fine' });
    expect(connection.unreadable).toBe(2);
    // The stub ends the turn only after it had our answer.
    expect(sent().find((m) => 'unknownRequestReply' in m)).toMatchObject({ unknownRequestReply: { code: -32601 } });
  });

  it('declines an approval request and shows it in the turn', async () => {
    const p = pool();
    const connection = await p.acquire(specFor({ turn: 'approval' }));
    const lines: string[] = [];
    const result = await turn(connection, p, { onLine: (l) => lines.push(l) });
    expect(result.status).toBe('completed');
    expect(result.deniedRequests).toEqual(['item/commandExecution/requestApproval']);
    expect(result.lastAgentMessage).toBe('approval answer: {"decision":"decline"}');
    expect(lines.some((l) => l.includes('approval requested (item/commandExecution/requestApproval) — declined'))).toBe(true);
  });

  it('a closeout via a dynamic tool: the nudge turn is really waited for (B15.7)', async () => {
    const p = pool();
    const connection = await p.acquire(specFor({ turn: 'closeout-on-nudge' }));
    const host = new CloseoutCollector();
    const result = await turn(connection, p, { tools: sechroomToolSet(host) });
    expect(result).toMatchObject({ status: 'completed', nudged: true, closeout: { terminal_status: 'completed', summary: 'closed out on the nudge' } });
    expect(host.closeout).toEqual({ terminal_status: 'completed', summary: 'closed out on the nudge' });
    expect(result.lastAgentMessage).toBe('closeout reply: closeout accepted');
    expect(result.turnIds).toHaveLength(2);
    const start = sent().find((m) => m.method === 'thread/start');
    expect(start?.params?.dynamicTools).toEqual([
      expect.objectContaining({ type: 'function', name: 'sechroom_closeout' }),
      expect.objectContaining({ type: 'function', name: 'sechroom_lifecycle_signal' }),
    ]);
    // The nudge turn asked for the closeout by name.
    expect(
      sent()
        .filter((m) => m.method === 'turn/start')
        .at(-1)?.params,
    ).toMatchObject({ input: [{ text: expect.stringContaining('sechroom_closeout') }] });
    expect(connection.subscriberCount).toBe(0);
  });

  it('a timed-out turn that did work is interrupted with its ids and resumed on its thread (fake clock)', async () => {
    const clock = new FakeClock();
    const p = pool();
    const connection = await p.acquire(specFor({ turn: 'hang-then-resume' }));
    let advanced = false;
    const result = await turn(connection, p, {
      clock,
      timeoutMs: 60_000,
      // The turn is under way once tokens were reported: let the timeout fall due.
      onTokens: () => {
        if (advanced) return;
        advanced = true;
        // After the client has seen the turn/start answer and armed the turn's timeout.
        setImmediate(() => clock.advance(60_000));
      },
    });
    expect(result).toMatchObject({ status: 'completed', resumed: true, lastAgentMessage: 'resumed and done' });
    const interrupt = sent().find((m) => m.method === 'turn/interrupt');
    expect(interrupt?.params).toEqual({ threadId: result.threadId, turnId: result.turnIds[0] });
    expect(sent().find((m) => m.method === 'thread/resume')?.params).toEqual({ threadId: result.threadId });
  });

  it('a timeout that is not resumed still interrupts the turn by its ids instead of leaving it running (B15.8)', async () => {
    const clock = new FakeClock();
    const p = pool();
    const connection = await p.acquire(specFor({ turn: 'hang' }));
    let timeouts = 0;
    const result = await turn(connection, p, {
      clock,
      timeoutMs: 60_000,
      onTokens: () => {
        timeouts++;
        setImmediate(() => clock.advance(60_000));
      },
    });
    expect(result.status).toBe('timeout');
    expect(timeouts).toBe(2); // the work turn and the resumed one
    const interrupts = sent().filter((m) => m.method === 'turn/interrupt');
    expect(interrupts.map((m) => m.params)).toEqual(result.turnIds.map((turnId) => ({ threadId: result.threadId, turnId })));
    expect(connection.alive).toBe(true);
  });

  it('cancel: turn/interrupt first; a server that ignores it is stopped as a process tree', async () => {
    const p = pool();
    const connection = await p.acquire(specFor({ turn: 'hang', ignoreInterrupt: true }));
    const pid = connection.pid!;
    const controller = new AbortController();
    const result = await turn(connection, p, { signal: controller.signal, interruptGraceMs: 200, onTokens: () => controller.abort() });
    expect(result).toMatchObject({ status: 'canceled', killed: true });
    expect(sent().filter((m) => m.method === 'turn/interrupt')).toHaveLength(1);
    await connection.exited;
    expect(await isRunning(pid)).toBe(false);
    expect(connection.subscriberCount).toBe(0);
  });

  it('cancel honoured by the server keeps the server for the next turn', async () => {
    const p = pool();
    const spec = specFor({ turn: 'hang' });
    const connection = await p.acquire(spec);
    const controller = new AbortController();
    const result = await turn(connection, p, { signal: controller.signal, onTokens: () => controller.abort() });
    expect(result).toMatchObject({ status: 'canceled', killed: false });
    expect(connection.alive).toBe(true);
    expect(await p.acquire(spec)).toBe(connection);
  });

  it('an app-server that dies between turns is respawned for the next one', async () => {
    const p = pool();
    const spec = specFor({ exitAfterTurn: true });
    const first = await p.acquire(spec);
    expect((await turn(first, p)).status).toBe('completed');
    await first.exited;
    const second = await p.acquire(spec);
    expect(second).not.toBe(first);
    expect(p.spawned).toBe(2);
    expect((await turn(second, p)).status).toBe('completed');
    // Each server was initialized.
    expect(sent().filter((m) => m.method === 'initialized')).toHaveLength(2);
  });

  it('a server that dies during a turn fails that turn with the reason', async () => {
    const p = pool();
    const connection = await p.acquire(specFor({ turn: 'hang' }));
    const result = await turn(connection, p, { onTokens: () => process.kill(connection.pid!, 'SIGKILL') });
    expect(result.status).toBe('crashed');
    expect(result.error).toMatch(/codex app-server exited \(SIGKILL\)/);
  });

  it('rate limits at 1.8 % used are read with their absolute reset instant', async () => {
    const p = pool();
    const resetsAt = 1_796_230_000;
    const connection = await p.acquire(
      specFor({ rateLimits: { limitId: 'codex', primary: { usedPercent: 98.2, windowDurationMins: 300, resetsAt }, secondary: null } }),
    );
    const readings: RateLimitReading[] = [];
    await turn(connection, p, { onRateLimits: (r) => readings.push(r) });
    expect(readings[0]).toEqual({ primary: { usedPercent: 98.2, windowMinutes: 300, resetsAt: resetsAt * 1000 }, secondary: null });
  });

  it('through the executor: a usage-limit failure is reported as such, with the reset time', async () => {
    const logging = testLogging();
    const clock = new FakeClock();
    // The turn's clock is fake (the reset instant is exact); stopping processes runs on real time.
    const executor = new LocalRuntimeExecutor({ workRoot: path.join(dir, 'work'), log: logging.log, clock, killGraceMs: 300, appServerPool: pool() });
    const outcome = await executor.execute({
      unitId: 'u-limit',
      kind: 'turn_execution',
      runtime: 'codex',
      binary: STUB,
      codexDriver: 'app-server',
      prompt: 'work',
      mcp: { serverUrl: 'http://127.0.0.1:9/mcp', token: 'mcp-token-abcdef123456' },
      resumeSessionId: null,
      timeoutMs: 30_000,
      signal: new AbortController().signal,
      env: { STUB_SCENARIO: JSON.stringify({ turn: 'usage-limit' }), STUB_LOG: logFile },
      knownSecrets: ['mcp-token-abcdef123456'],
    });
    await executor.stop();
    expect(outcome).toMatchObject({ status: 'failed', reason: 'runtime_error', usageLimit: { resetsAt: clock.now() + (2 * 60 + 14) * 60_000 } });
    expect(outcome.summary).toContain("You've hit your usage limit");
    // The unit's MCP server and token went in the thread's config, not argv or env.
    const start = sent().find((m) => m.method === 'thread/start');
    expect(start?.params?.config).toMatchObject({ 'mcp_servers.rost.http_headers': { Authorization: 'Bearer mcp-token-abcdef123456' } });
    expect(JSON.stringify(logging.entries)).not.toContain('mcp-token-abcdef123456');
  });

  it('the usage probe asks the app-server for the windows (account/rateLimits/read); an API-key account has none', async () => {
    const logging = testLogging();
    const executor = new LocalRuntimeExecutor({ workRoot: path.join(dir, 'work'), log: logging.log, killGraceMs: 300, appServerPool: pool() });
    const windows = { limitId: 'codex', primary: { usedPercent: 98.2, windowDurationMins: 300, resetsAt: null }, secondary: null };
    const env = {
      STUB_SCENARIO: JSON.stringify({ rateLimits: windows, probeRateLimits: { ...windows, primary: { ...windows.primary, usedPercent: 12 } } }),
      STUB_LOG: logFile,
    };
    expect(await executor.readCodexRateLimits(STUB, env, [])).toEqual({ primary: { usedPercent: 12, windowMinutes: 300, resetsAt: null }, secondary: null });
    expect(sent().filter((m) => m.method === 'account/rateLimits/read')).toHaveLength(1);
    await expect(executor.readCodexRateLimits(STUB, { STUB_SCENARIO: '{}', STUB_LOG: logFile }, [])).rejects.toThrow(/authentication required/);
  });
});
