import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));
// Each round starts a whole host (about 3 s on a quiet 2-core machine, far more on a loaded
// one): the suite runs 6 rounds; RUNNER_TRAY_RESTART_ROUNDS=20 runs the longer proof.
const ROUNDS = Number(process.env.RUNNER_TRAY_RESTART_ROUNDS ?? 6);
/** A host that neither listens nor exits within this is reported with what it printed (not left to the test's timeout). */
const START_BOUND_MS = 90_000;

let emu: RunningEmulator | null = null;
let dir = '';
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await emu?.close();
  emu = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

interface Host {
  child: ChildProcess;
  lines: string[];
  /** Resolves when the host listens (its address line), or with its exit code when it ends first. */
  listening: Promise<{ listening: true } | { listening: false; code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * The headless host as a service unit restarts it. A `bwrap` that cannot make a sandbox
 * comes first on PATH, so turns run without bubblewrap (the path macOS, Windows and Linux
 * without bwrap take): a runtime then outlives a killed host for a moment, and the next
 * host waits for it to die before its server exists.
 */
function host(args: string[]): Host {
  const child = spawn(process.execPath, ['--import', 'tsx', 'main/headless/cli.ts', '--port', '0', ...args], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PATH: `${path.join(dir, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
      RUNNER_CONTROL_PLANE_URL: emu!.url,
      RUNNER_TRAY_DATA_DIR: path.join(dir, 'data'),
      RUNNER_TRAY_ALLOW_FILE_SECRET_STORE: '1',
      RUNNER_TRAY_CLAUDE_BIN: FAKE,
      RUNNER_TRAY_CODEX_BIN: path.join(dir, 'no-codex-here'),
      RUNNER_HEARTBEAT_MS: '1000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  const listening = new Promise<Awaited<Host['listening']>>((resolve) => {
    const feed = (line: string) => {
      lines.push(line);
      if (/^Runner Tray \S+ \(headless\) — open http/.test(line)) resolve({ listening: true });
    };
    createInterface({ input: child.stdout! }).on('line', feed);
    createInterface({ input: child.stderr! }).on('line', feed);
    child.once('exit', (code, signal) => resolve({ listening: false, code, signal }));
  });
  return { child, lines, listening };
}

/** The pid of the runtime the host's running note names, once it has one. */
function runningRuntimePid(): number | null {
  const journal = path.join(dir, 'data', 'profiles', 'default', 'running');
  let names: string[] = [];
  try {
    names = readdirSync(journal);
  } catch {
    return null;
  }
  for (const name of names) {
    try {
      const note = JSON.parse(readFileSync(path.join(journal, name), 'utf8')) as { pid: number | null };
      if (typeof note.pid === 'number') return note.pid;
    } catch {
      // being written
    }
  }
  return null;
}

describe('a host restarted right after kill -9, turns without bubblewrap', () => {
  it(
    `comes up and listens every time (${ROUNDS} restarts in a row), never exiting 0 silently`,
    async () => {
      emu = await startEmulator({ config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000, longPollMaxMs: 1000 } });
      dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-restart-'));
      mkdirSync(path.join(dir, 'bin'));
      writeFileSync(path.join(dir, 'bin', 'bwrap'), '#!/bin/sh\nexit 1\n');
      chmodSync(path.join(dir, 'bin', 'bwrap'), 0o755);
      const runner = emu.admin.createRunner({ name: 'restarted' });
      const seed = path.join(dir, 'rost-runner.json');
      writeFileSync(seed, JSON.stringify({ runner_id: runner.runner_id, runner_secret: runner.runner_secret, tenant_id: runner.tenant_id }), { mode: 0o600 });

      let current = host(['--execute', '--state-file', seed]);
      expect(await current.listening).toEqual({ listening: true });
      const silent: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const unit = emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep' });
        await emu.admin.waitForEvent((e) => e.type === 'unit.started' && e.data.unit_id === unit.id, { timeoutMs: 30_000 });
        await vi.waitFor(() => expect(runningRuntimePid()).not.toBeNull(), { timeout: 30_000, interval: 20 });
        const dead = new Promise((resolve) => current.child.once('exit', resolve));
        current.child.kill('SIGKILL');
        await dead;
        // At once, as a service manager does: the killed host's runtime is still dying.
        const next = host([]);
        const outcome = await Promise.race([
          next.listening,
          new Promise<never>((_, reject) =>
            setTimeout(
              () => reject(new Error(`round ${round + 1}: the host neither listened nor exited within ${START_BOUND_MS} ms:\n${next.lines.join('\n')}`)),
              START_BOUND_MS,
            ).unref(),
          ),
        ]);
        if (!outcome.listening) silent.push(`round ${round + 1}: exited ${outcome.code ?? outcome.signal} before listening:\n${next.lines.join('\n')}`);
        expect(silent).toEqual([]);
        current = next;
      }
      // One SIGTERM stops the host, however soon after its start it comes (a service manager's stop).
      const last = current;
      const exited = new Promise<number | null>((resolve) => last.child.once('exit', (code) => resolve(code)));
      last.child.kill('SIGTERM');
      const code = await Promise.race([
        exited,
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new Error(`one SIGTERM did not stop the host within ${START_BOUND_MS} ms:\n${last.lines.join('\n')}`)),
            START_BOUND_MS,
          ).unref(),
        ),
      ]);
      expect(code).toBe(0);
    },
    ROUNDS * 120_000,
  );
});
