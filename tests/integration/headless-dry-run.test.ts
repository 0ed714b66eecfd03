// `--dry-run` [v1]: the real headless host against the emulator says, per lane the plane
// offers this runner (GET /api/runner/lanes), whether this machine can run its work, claims
// nothing, and exits 0 (all runnable) or 1. Claude is a fake runtime here; codex is absent.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-dryrun-'));
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

describe('the headless host with --dry-run', () => {
  it('says per lane whether this machine can run it, claims nothing, exits 1 while a lane is not runnable and 0 once all are', async () => {
    await setup();
    const seed = seedStateFile();
    const claude = emu!.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
    const codex = emu!.admin.enqueueWorkOrder({ brain: 'codex', prompt: 'fake:json' });
    const first = host(['--dry-run', '--execute', '--state-file', seed.file]);
    expect(await first.exited).toBe(1);
    expect(first.lines.some((l) => /^dry run: lane claude \(1 queued\): runnable — runs on claude \(\S+\)$/.test(l))).toBe(true);
    expect(first.lines.some((l) => /^dry run: lane codex \(1 queued\): NOT runnable — codex is not installed$/.test(l))).toBe(true);
    expect(first.lines).toContain('dry run: 1 lane(s) not runnable here; nothing was claimed');
    expect(emu!.admin.listEvents({ type: 'unit.claimed', limit: 100 })).toEqual([]);
    expect(emu!.admin.getUnit(claude.id)?.status).toBe('queued');

    emu!.admin.cancelUnit(codex.id);
    const second = host(['--dry-run', '--execute']);
    expect(await second.exited).toBe(0);
    expect(second.lines).toContain('dry run: every lane is runnable here; nothing was claimed');
    expect(emu!.admin.listEvents({ type: 'unit.claimed', limit: 100 })).toEqual([]);
    expect(first.lines.concat(second.lines).join('\n')).not.toContain(seed.secret);
  }, 60_000);

  it('against a plane that lists no lanes, checks each runtime instead', async () => {
    await setup();
    const seed = seedStateFile();
    emu!.admin.addFault({ route: '/api/runner/lanes', error: { rate: 1, status: 404 } });
    const h = host(['--dry-run', '--execute', '--state-file', seed.file]);
    expect(await h.exited).toBe(1);
    expect(h.lines).toContain('dry run: the control plane lists no lanes; checking each runtime instead');
    expect(h.lines.some((l) => l.startsWith('dry run: lane claude: runnable'))).toBe(true);
    expect(h.lines.some((l) => l.startsWith('dry run: lane codex: NOT runnable'))).toBe(true);
  }, 60_000);
});
