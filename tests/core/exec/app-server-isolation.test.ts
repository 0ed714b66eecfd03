import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCommandRunner } from '../../../main/core/exec/process-runner';
import { AppServerPool } from '../../../main/core/exec/codex-app-server/server-pool';
import { LocalRuntimeExecutor } from '../../../main/core/exec/executor';
import { commandWorks, ENVIRONMENT_ONLY, probeIsolation, type IsolationTools } from '../../../main/core/exec/isolation';
import type { ExecutionRequest } from '../../../main/core/exec/executor-port';
import { systemClock } from '../../../main/core/base/ports';
import { testLogging } from '../../helpers/test-logger';

// The codex app-server is spawned through the isolation module, as exec turns are: the
// allowlisted environment (none of the runner's variables), a private CODEX_HOME that
// outlives each turn (the server is long-lived), and the sandbox where bubblewrap works.

const STUB = fileURLToPath(new URL('../../stubs/codex-app-server-stub.mjs', import.meta.url));
const RUNNER_SECRET = 'rsec_0123456789abcdef0123456789abcdef';

interface StubStart {
  env: Record<string, string>;
  cwd: string;
}

const linux = process.platform === 'linux';
const bwrap = linux ? await createCommandRunner().which('bwrap') : null;
const sandbox: IsolationTools | null = bwrap ? await probeIsolation({ platform: 'linux', which: async () => bwrap, works: commandWorks }) : null;

describe('codex app-server through the isolation module', () => {
  let dir: string;
  let home: string;
  let workRoot: string;
  let pool: AppServerPool;
  let executor: LocalRuntimeExecutor;

  beforeEach(() => {
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'rt-appserver-iso-')));
    home = path.join(dir, 'home');
    workRoot = path.join(dir, 'work');
    mkdirSync(path.join(home, '.codex'), { recursive: true });
    // The operator's own codex: an MCP server of theirs and their sign-in.
    writeFileSync(path.join(home, '.codex', 'config.toml'), 'model = "gpt-test"\n\n[mcp_servers.private]\ncommand = "operator-only-tool"\n');
    writeFileSync(path.join(home, '.codex', 'auth.json'), '{"tokens":{"access_token":"operator-sign-in","refresh_token":"operator-refresh"}}');
  });

  afterEach(async () => {
    await executor?.stop();
    await pool?.stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  function makeExecutor(tools: IsolationTools) {
    pool = new AppServerPool({ log: testLogging().log, clock: systemClock, clientVersion: '9.9.9', killGraceMs: 300 });
    executor = new LocalRuntimeExecutor({
      workRoot,
      log: testLogging().log,
      killGraceMs: 300,
      appServerPool: pool,
      isolation: {
        tools: async () => tools,
        extraEnvAllow: () => [],
        ownConfig: () => false,
        hidden: [dir],
        // What the runner's own process has: its variables and secrets beside the ordinary ones.
        sourceEnv: {
          PATH: process.env.PATH,
          HOME: home,
          LANG: 'C.UTF-8',
          RUNNER_TRAY_DATA_DIR: path.join(dir, 'data'),
          RUNNER_CONTROL_PLANE_URL: 'http://127.0.0.1:7457',
          RUNNER_SECRET_HINT: RUNNER_SECRET,
          ROST_RUNNER_TOKEN: RUNNER_SECRET,
          DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
          SSH_AUTH_SOCK: '/tmp/ssh-agent.sock',
        },
      },
    });
    return executor;
  }

  const request = (unitId: string): ExecutionRequest => ({
    unitId,
    kind: 'turn_execution',
    runtime: 'codex',
    binary: STUB,
    codexDriver: 'app-server',
    prompt: 'do the work',
    mcp: null,
    resumeSessionId: null,
    timeoutMs: 30_000,
    signal: new AbortController().signal,
    env: { STUB_SCENARIO: JSON.stringify({ turn: 'complete', answer: 'done' }), STUB_ENV_FILE: 'stub-start.json' },
    knownSecrets: [RUNNER_SECRET],
  });

  /** The app-server's folder of this executor (one per profile) and what the server saw at start. */
  function serverFolder(): { root: string; start: StubStart } {
    const folders = readdirSync(workRoot).filter((n) => n.startsWith('turn-codex-app-server-'));
    expect(folders).toHaveLength(1);
    const root = path.join(workRoot, folders[0] as string);
    return { root, start: JSON.parse(readFileSync(path.join(root, 'cwd', 'stub-start.json'), 'utf8')) as StubStart };
  }

  it('the server gets the allowlisted environment (no RUNNER_*, ROST_*, D-Bus or SSH agent) and a private CODEX_HOME kept across turns', async () => {
    const ex = makeExecutor(ENVIRONMENT_ONLY);
    const first = await ex.execute(request('u-1'));
    expect(first).toMatchObject({ status: 'succeeded' });

    const { root, start } = serverFolder();
    const names = Object.keys(start.env);
    expect(names.filter((n) => /^(RUNNER_|ROST_|DBUS_|SSH_)/.test(n))).toEqual([]);
    expect(JSON.stringify(start.env)).not.toContain(RUNNER_SECRET);
    expect(start.env).toMatchObject({ PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8' });
    // The host's explicit variables for runtimes still reach it.
    expect(start.env.STUB_SCENARIO).toBeDefined();

    // CODEX_HOME is the runner's, in the server's folder: not the operator's ~/.codex, no MCP server of theirs.
    const codexHome = start.env.CODEX_HOME as string;
    expect(codexHome).toBe(path.join(root, 'codex-home'));
    expect(readFileSync(path.join(codexHome, 'config.toml'), 'utf8')).not.toContain('operator-only-tool');
    expect(readFileSync(path.join(codexHome, 'auth.json'), 'utf8')).toContain('operator-sign-in');
    expect(readFileSync(path.join(codexHome, 'auth.json'), 'utf8')).not.toContain('operator-refresh');
    expect(start.cwd).toBe(path.join(root, 'cwd'));

    // The next turn is served by the same process; its CODEX_HOME outlived the first turn.
    const second = await ex.execute(request('u-2'));
    expect(second).toMatchObject({ status: 'succeeded' });
    expect(pool.spawned).toBe(1);
    expect(existsSync(path.join(codexHome, 'config.toml'))).toBe(true);
    // Each turn's own folder (inside the server's) is gone after it.
    expect(readdirSync(root).filter((n) => n.startsWith('turn-'))).toEqual([]);

    await ex.stop();
    expect(existsSync(root)).toBe(false);
  });

  it('a server that starts again gets a new CODEX_HOME: nothing a turn planted there is left', async () => {
    const ex = makeExecutor(ENVIRONMENT_ONLY);
    expect(await ex.execute(request('u-1'))).toMatchObject({ status: 'succeeded' });
    const { start } = serverFolder();
    const codexHome = start.env.CODEX_HOME as string;
    // What a prompt-injected turn leaves in the server's CODEX_HOME.
    writeFileSync(path.join(codexHome, 'config.toml'), '\n[mcp_servers.planted]\ncommand = "PLANTED"\n', { flag: 'a' });
    writeFileSync(path.join(codexHome, 'AGENTS.md'), 'PLANTED\n');
    mkdirSync(path.join(codexHome, 'rules'));
    writeFileSync(path.join(codexHome, 'rules', 'planted.rules'), 'PLANTED\n');
    await pool.stopAll();

    expect(await ex.execute(request('u-2'))).toMatchObject({ status: 'succeeded' });
    expect(pool.spawned).toBe(2);
    expect(readFileSync(path.join(codexHome, 'config.toml'), 'utf8')).not.toContain('PLANTED');
    expect(readdirSync(codexHome).sort()).toEqual(['auth.json', 'config.toml']);
    expect(readFileSync(path.join(codexHome, 'auth.json'), 'utf8')).toContain('operator-sign-in');
    await ex.stop();
  });

  it.skipIf(!sandbox || sandbox.level !== 'bubblewrap')(
    'under bubblewrap the server runs sandboxed with the same clean environment and a temp folder of its own',
    async () => {
      const ex = makeExecutor(sandbox as IsolationTools);
      const outcome = await ex.execute(request('u-sandboxed'));
      expect(outcome).toMatchObject({ status: 'succeeded' });
      const { root, start } = serverFolder();
      expect(Object.keys(start.env).filter((n) => /^(RUNNER_|ROST_|DBUS_|SSH_)/.test(n))).toEqual([]);
      expect(start.env.CODEX_HOME).toBe(path.join(root, 'codex-home'));
      // Inside the sandbox the temp folder is the server's own.
      expect(start.env.TMPDIR).toBe(path.join(root, 'tmp'));
    },
  );
});
