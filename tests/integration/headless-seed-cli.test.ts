import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let emu: RunningEmulator | null = null;
let dir = '';
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await emu?.close();
  emu = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

interface Host {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the first line (seen or to come) that matches. */
  line(match: RegExp): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

/** The headless host as a unit file starts it: these arguments, the rest from the environment. */
function host(args: string[], env: Record<string, string> = {}): Host {
  const child = spawn(process.execPath, ['--import', 'tsx', 'main/headless/cli.ts', ...args], {
    cwd: repoRoot,
    env: {
      ...process.env,
      RUNNER_CONTROL_PLANE_URL: emu!.url,
      RUNNER_TRAY_DATA_DIR: path.join(dir, 'data'),
      RUNNER_TRAY_ALLOW_FILE_SECRET_STORE: '1',
      RUNNER_TRAY_CLAUDE_BIN: FAKE,
      RUNNER_TRAY_CODEX_BIN: path.join(dir, 'no-codex-here'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  const feed = (line: string) => {
    lines.push(line);
    for (const w of [...waiters]) w();
  };
  createInterface({ input: child.stdout! }).on('line', feed);
  createInterface({ input: child.stderr! }).on('line', feed);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    exited,
    line: (match) =>
      new Promise((resolve, reject) => {
        const check = () => {
          for (const l of lines) {
            const m = match.exec(l);
            if (m) {
              waiters.delete(check);
              clearTimeout(timer);
              return resolve(m);
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no line matched ${match} in:\n${lines.join('\n')}`));
        }, 20_000);
        waiters.add(check);
        check();
      }),
  };
}

async function setup(config: Record<string, unknown> = {}): Promise<void> {
  emu = await startEmulator({ config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000, longPollMaxMs: 1000, ...config } });
  dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-seedcli-'));
}

/** A state file as `rost runner serve` leaves it: the runner and its secret, owner-only. */
function seedStateFile(): { file: string; runnerId: string; secret: string } {
  const runner = emu!.admin.createRunner({ name: 'rack-7' });
  const file = path.join(dir, 'rost-runner.json');
  writeFileSync(
    file,
    `${JSON.stringify({ runner_id: runner.runner_id, runner_secret: runner.runner_secret, tenant_id: runner.tenant_id, name: 'rack-7' })}\n`,
    { mode: 0o600 },
  );
  return { file, runnerId: runner.runner_id, secret: runner.runner_secret };
}

describe('the headless host as a drop-in for `rost runner serve`', () => {
  it('runs a real unit file line: --execute --state-file <seed file> --heartbeat-ms 30000', async () => {
    await setup();
    const seed = seedStateFile();
    const h = host(['--execute', '--state-file', seed.file, '--heartbeat-ms', '30000']);
    await h.line(/^Took over runner /);
    await h.line(/^Mode: runs work on this machine \(--execute\) with claude\.$/);
    const beat = await h.line(/^heartbeat ok #1 runner_id=(\S+) claude=true codex=false$/);
    expect(beat[1]).toBe(seed.runnerId);
    // The secret left the seed file (identity kept), and the runner takes work.
    const rewritten = JSON.parse(readFileSync(seed.file, 'utf8')) as Record<string, unknown>;
    expect(rewritten).toMatchObject({ runner_id: seed.runnerId, name: 'rack-7' });
    expect(rewritten.runner_secret).toBeUndefined();
    const unit = emu!.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
    await emu!.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === unit.id, { timeoutMs: 15_000, since: 0 });
    expect(emu!.admin.listResults({ unit_id: unit.id })[0]).toMatchObject({ status: 'succeeded' });
    expect(h.lines.join('\n')).not.toContain(seed.secret);
    h.child.kill('SIGTERM');
    expect(await h.exited).toBe(0);
  }, 40_000);

  it('heartbeat-only with RUNNER_EXECUTE=0: says so at start and claims nothing', async () => {
    await setup();
    const seed = seedStateFile();
    const unit = emu!.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
    const h = host(['--state-file', seed.file, '--heartbeat-ms', '1000', '--port', '0'], { RUNNER_EXECUTE: '0' });
    await h.line(/^Mode: heartbeat only — nothing is claimed \(RUNNER_EXECUTE=0\)\.$/);
    await h.line(/^heartbeat ok #3 runner_id=/);
    await h.line(/^Status: Idle — Heartbeat only: this machine takes no work/);
    expect(emu!.admin.listEvents({ type: 'unit.claimed', limit: 100 })).toEqual([]);
    expect(emu!.admin.getUnit(unit.id)?.status).toBe('queued');
    h.child.kill('SIGTERM');
    expect(await h.exited).toBe(0);
  }, 40_000);

  it.each([
    [{}, '--state-file without --execute'],
    [{ RUNNER_EXECUTE: 'true' }, 'RUNNER_EXECUTE=true'],
  ])(
    'a seed unit line without --execute is heartbeat only, as the seed’s (%o)',
    async (env, source) => {
      await setup();
      const seed = seedStateFile();
      const unit = emu!.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
      const h = host(['--state-file', seed.file, '--heartbeat-ms', '1000', '--port', '0'], env);
      await h.line(new RegExp(`^Mode: heartbeat only — nothing is claimed \\(${source}\\)\\.$`));
      await h.line(/^heartbeat ok #2 runner_id=/);
      expect(emu!.admin.listEvents({ type: 'unit.claimed', limit: 100 })).toEqual([]);
      expect(emu!.admin.getUnit(unit.id)?.status).toBe('queued');
      h.child.kill('SIGTERM');
      expect(await h.exited).toBe(0);
    },
    40_000,
  );

  it('--once: one heartbeat, one claim and run, exit 0; then exit 1 when the heartbeat fails', async () => {
    await setup();
    const seed = seedStateFile();
    const unit = emu!.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
    const once = host(['--once', '--execute', '--state-file', seed.file]);
    expect(await once.exited).toBe(0);
    expect(once.lines).toContain(`heartbeat ok #1 runner_id=${seed.runnerId} claude=true codex=false`);
    expect(emu!.admin.listResults({ unit_id: unit.id })[0]).toMatchObject({ status: 'succeeded' });
    expect(once.lines.filter((l) => l.startsWith('heartbeat ok'))).toHaveLength(1);

    emu!.admin.addFault({ route: '/api/runner/heartbeat', error: { rate: 1, status: 503 } });
    const failing = host(['--once']);
    expect(await failing.exited).toBe(1);
    expect(failing.lines.some((l) => l.startsWith('heartbeat failed: '))).toBe(true);
  }, 60_000);

  it('pairs with --user-code from the web page and prints the seed line', async () => {
    await setup();
    const code = emu!.admin.issuePairingCode({ name: '' }).user_code;
    const h = host(['--once', '--user-code', code, '--name', 'from-the-web']);
    await h.line(/^Pairing with the code you were given \([A-Z]{4}-[A-Z]{4}\)…$/);
    const paired = await h.line(/^paired runner_id=(\S+) state_file=(.+)$/);
    expect(paired[2]).toBe(path.join(dir, 'data', 'profiles', 'default', 'runner-state.json'));
    expect(await h.exited).toBe(0);
    expect(emu!.admin.listRunners().find((r) => r.id === paired[1])).toMatchObject({ name: 'from-the-web' });
  }, 40_000);

  it('on a later start, says so when the state file is newer and holds another runner', async () => {
    await setup();
    const seed = seedStateFile();
    const first = host(['--once', '--state-file', seed.file]);
    expect(await first.exited).toBe(0);
    // A seed CLI paired again with the same file afterwards.
    const other = emu!.admin.createRunner({ name: 'other' });
    writeFileSync(seed.file, JSON.stringify({ runner_id: other.runner_id, runner_secret: other.runner_secret }));
    const later = new Date(Date.now() + 60_000);
    utimesSync(seed.file, later, later);
    const second = host(['--once', '--state-file', seed.file]);
    expect(await second.exited).toBe(0);
    const warning = second.lines.find((l) => l.startsWith('Warning: '));
    expect(warning).toContain(`holds another runner (runner_id=${other.runner_id}, with its secret). This machine stays runner ${seed.runnerId}.`);
    expect(second.lines.join('\n')).not.toContain(other.runner_secret);
  }, 60_000);

  it('refuses a bad flag with exit 2 and the seed message (the rest: tests/core/settings/overrides.test.ts)', async () => {
    await setup();
    const h = host(['--execute', '--heartbeat-ms', '999']);
    expect(await h.exited).toBe(2);
    expect(h.lines[0]).toBe('runner-tray headless: --heartbeat-ms must be an integer >= 1000.');
  }, 30_000);
});
