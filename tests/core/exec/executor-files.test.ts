import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../../main/core/base/ports';
import { LocalRuntimeExecutor } from '../../../main/core/exec/executor';
import { testLogging } from '../../helpers/test-logger';
import { FAKE_RUNTIME, MCP_TOKEN, RUNNER_SECRET, listTurnDirs, request, setup, tempDir } from './exec-helpers';

// The per-turn files: the MCP config is owner-only in an owner-only directory while the
// turn runs, and gone after every way a turn can end; stale ones are swept at start.

interface Inspection {
  argv: string[];
  cwd: string;
  envToken: string | null;
  runnerSecretVar: string | null;
  configPath: string | null;
  config: unknown;
  configMode: string | null;
  configDirMode: string | null;
  cwdMode: string;
  stdin: string;
}

function inspect(label: string): { env: Record<string, string>; read: () => Inspection } {
  const file = path.join(tempDir(label), 'report.json');
  return { env: { FAKE_MODE: 'inspect', FAKE_REPORT_FILE: file }, read: () => JSON.parse(readFileSync(file, 'utf8')) as Inspection };
}

/** At spawn time: the turn's MCP config exists (sync check inside onSpawn). */
function configSeenAtSpawn(workRoot: string, seen: { config?: boolean }) {
  return () => {
    const dirs = listTurnDirs(workRoot);
    seen.config = dirs.length === 1 && existsSync(path.join(workRoot, dirs[0] as string, 'mcp-config.json'));
  };
}

describe('LocalRuntimeExecutor turn files', () => {
  beforeEach(() => {
    process.env.TEST_RUNNER_SECRET = RUNNER_SECRET;
  });
  afterEach(() => {
    delete process.env.TEST_RUNNER_SECRET;
  });

  it('claude: writes the MCP config 0600 in a 0700 dir, passes it, the prompt on stdin only, removes it after', async () => {
    const { executor, workRoot, turnDirs } = setup();
    const probe = inspect('claude');
    const outcome = await executor.execute(request(probe.env, { prompt: '-starts with a dash', resumeSessionId: 'sess-1' }));
    expect(outcome.status).toBe('succeeded');
    const seen = probe.read();
    expect(seen.configMode).toBe('600');
    expect(seen.configDirMode).toBe('700');
    expect(seen.config).toEqual({
      mcpServers: { rost: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: `Bearer ${MCP_TOKEN}` } } },
    });
    expect(seen.argv).toEqual([
      '-p',
      '--setting-sources',
      'user',
      '--strict-mcp-config',
      '--mcp-config',
      seen.configPath,
      '--allowedTools',
      'mcp__rost',
      '--output-format',
      'stream-json',
      '--verbose',
      '--resume',
      'sess-1',
    ]);
    expect(seen.stdin).toBe('-starts with a dash');
    expect(seen.runnerSecretVar).toBeNull();
    // Resumable claude turns run in the one stable directory claude can find its sessions from.
    expect(seen.cwd).toBe(path.join(workRoot, 'claude-cwd'));
    expect(seen.cwdMode).toBe('700');
    expect(existsSync(seen.configPath as string)).toBe(false);
    expect(turnDirs()).toEqual([]);
  });

  it('claude work orders run in a fresh directory with text output', async () => {
    const { executor, workRoot } = setup();
    const probe = inspect('claude-wo');
    await executor.execute(request(probe.env, { kind: 'work_order', mcp: null }));
    const seen = probe.read();
    expect(seen.argv).toEqual(['-p', '--setting-sources', 'user', '--strict-mcp-config', '--allowedTools', 'mcp__rost', '--output-format', 'text']);
    expect(seen.stdin).toBe('do the work');
    expect(path.dirname(path.dirname(seen.cwd))).toBe(workRoot);
    expect(path.basename(seen.cwd)).toBe('cwd');
    expect(existsSync(seen.cwd)).toBe(false);
  });

  it('codex: MCP server by -c flags, bearer only through the environment, never argv', async () => {
    const { executor, turnDirs } = setup();
    const probe = inspect('codex');
    await executor.execute(request(probe.env, { runtime: 'codex' }));
    const seen = probe.read();
    expect(seen.envToken).toBe(MCP_TOKEN);
    expect(seen.argv.join(' ')).not.toContain(MCP_TOKEN);
    expect(seen.argv).toEqual([
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--cd',
      seen.cwd,
      '--sandbox',
      'workspace-write',
      '-c',
      'approval_policy="never"',
      '--ignore-rules',
      '-c',
      'mcp_servers.rost.url="http://127.0.0.1:9/mcp"',
      '-c',
      'mcp_servers.rost.bearer_token_env_var="ROST_MCP_TOKEN"',
      '-c',
      'mcp_servers.rost.default_tools_approval_mode="approve"',
      '-',
    ]);
    expect(seen.configPath).toBeNull();
    expect(seen.stdin).toBe('do the work');
    expect(turnDirs()).toEqual([]);
  });

  it.each([
    { ending: 'failure (crash)', env: { FAKE_MODE: 'crash' }, status: 'failed', timeoutMs: 20_000, abort: false },
    { ending: 'timeout', env: { FAKE_MODE: 'sleep' }, status: 'failed', timeoutMs: 300, abort: false },
    { ending: 'cancel', env: { FAKE_MODE: 'sleep' }, status: 'canceled', timeoutMs: 20_000, abort: true },
  ])('removes the MCP config after $ending', async ({ env, status, timeoutMs, abort }) => {
    const { executor, workRoot, turnDirs } = setup();
    const seen: { config?: boolean } = {};
    const controller = new AbortController();
    const onSpawn = configSeenAtSpawn(workRoot, seen);
    const outcome = await executor.execute(
      request(env, {
        timeoutMs,
        signal: controller.signal,
        onSpawn,
        onOutput: (tail) => {
          if (abort && tail.includes('working')) controller.abort();
        },
      }),
    );
    expect(outcome.status).toBe(status);
    expect(seen.config).toBe(true);
    expect(turnDirs()).toEqual([]);
  });

  it('removes the MCP config after a spawn error', async () => {
    const { executor, turnDirs } = setup();
    const outcome = await executor.execute(request({}, { binary: path.join(tempDir('nobin'), 'claude') }));
    expect(outcome.reason).toBe('spawn_error');
    expect(turnDirs()).toEqual([]);
  });

  it('removes the MCP config after an exception inside the executor, and reports it', async () => {
    const { log, entries } = testLogging();
    // A logger that fails at the end of the turn: an exception after the runtime ran.
    const failing = (l: Logger): Logger => ({
      ...l,
      info: (msg, data) => {
        if (msg === 'runtime turn ended') throw new Error(`logger broke with ${MCP_TOKEN}`);
        l.info(msg, data);
      },
      child: (c) => failing(l.child(c)),
    });
    const workRoot = path.join(tempDir('work'), 'runtime');
    const executor = new LocalRuntimeExecutor({ workRoot, log: failing(log), killGraceMs: 300 });
    const outcome = await executor.execute(request({ FAKE_MODE: 'json' }));
    expect(outcome).toMatchObject({ status: 'failed', reason: 'runtime_error' });
    expect(outcome.summary).toBe('runner error while running claude: logger broke with [REDACTED]');
    expect(listTurnDirs(workRoot)).toEqual([]);
    expect(entries.some((e) => e.msg === 'runtime turn failed in the runner')).toBe(true);
  });

  it('sweeps stale turn directories left by a crash, and only those', async () => {
    const workRoot = path.join(tempDir('work'), 'runtime');
    for (const name of ['turn-unit-a-x1y2z3', 'turn-unit-b-q9w8e7']) {
      mkdirSync(path.join(workRoot, name, 'cwd'), { recursive: true, mode: 0o700 });
      writeFileSync(path.join(workRoot, name, 'mcp-config.json'), '{"mcpServers":{}}', { mode: 0o600 });
    }
    mkdirSync(path.join(workRoot, 'claude-cwd'));
    writeFileSync(path.join(workRoot, 'keep.txt'), 'not ours to sweep');
    const executor = new LocalRuntimeExecutor({ workRoot, log: testLogging().log });
    expect(await executor.sweepStale()).toBe(2);
    expect(readdirSync(workRoot).sort()).toEqual(['claude-cwd', 'keep.txt']);
    expect(await executor.sweepStale()).toBe(0);
    expect(await new LocalRuntimeExecutor({ workRoot: path.join(workRoot, 'missing'), log: testLogging().log }).sweepStale()).toBe(0);
  });

  it('creates a missing workRoot owner-only', async () => {
    const { executor, workRoot } = setup();
    await executor.execute(request({ FAKE_MODE: 'json' }, { binary: FAKE_RUNTIME }));
    expect((statSync(workRoot).mode & 0o777).toString(8)).toBe('700');
  });
});
