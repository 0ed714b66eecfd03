// keytar against a real Secret Service: a private D-Bus session (dbus-run-session) with
// gnome-keyring-daemon in it, in a throwaway HOME, so the developer's own keyring is
// never touched. Runs wherever both tools are installed and keytar is built (CI has all
// three); skips with the reason otherwise.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keytarUnavailable, missingCommands, suiteTitle } from '../../helpers/environment';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/keychain-roundtrip.ts', import.meta.url));
const missing = missingCommands(['dbus-run-session', 'gnome-keyring-daemon']);
const skipReason = process.platform !== 'linux' ? 'not Linux' : missing.length > 0 ? `${missing.join(' and ')} not installed` : keytarUnavailable();

// $1: unlocked|locked, $2: the fixture. `--unlock` reads the password on stdin, creates and
// unlocks a login keyring, and returns once the daemon serves org.freedesktop.secrets.
const SESSION_SCRIPT = [
  'set -eu',
  'mkdir -p -m 700 "$XDG_RUNTIME_DIR"',
  'if [ "$1" = unlocked ]; then printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null; fi',
  'exec "$NODE_BIN" --import tsx "$2" "$1"',
].join('\n');

interface Verdict {
  mode: string;
  ok: boolean;
  error?: string;
  readBack?: boolean;
  deleted?: boolean;
  goneAfterDelete?: boolean;
  deleteAgain?: boolean;
  open?: { ok: boolean; backend?: string; reason?: string };
}

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'rt-keyring-home-'));
  // Made before dbus-run-session starts: the bus looks for it at once.
  mkdirSync(join(home, 'run'), { mode: 0o700 });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function runInSession(mode: 'unlocked' | 'locked'): Promise<{ verdict: Verdict | null; code: number | null; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'DISPLAY', 'WAYLAND_DISPLAY', 'GNOME_KEYRING_CONTROL', 'NODE_OPTIONS']) delete env[name];
  Object.assign(env, {
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_CACHE_HOME: join(home, 'cache'),
    XDG_RUNTIME_DIR: join(home, 'run'),
    KEYRING_PASSWORD: randomBytes(12).toString('hex'),
    NODE_BIN: process.execPath,
  });
  return new Promise((resolve) => {
    const child = spawn('dbus-run-session', ['--', 'bash', '-c', SESSION_SCRIPT, 'keychain-session', mode, fixture], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, so a hang can be killed whole
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, 45_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = stdout
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .pop();
      resolve({ verdict: line ? (JSON.parse(line) as Verdict) : null, code, stderr: stderr.slice(-2000) });
    });
  });
}

describe.skipIf(skipReason !== null)(suiteTitle('KeychainSecretStore against gnome-keyring', skipReason), () => {
  it('stores, reads back and deletes a secret, and openSecretStore picks the keychain', async () => {
    const { verdict, code, stderr } = await runInSession('unlocked');
    expect(verdict, `no verdict (exit ${code}); stderr:\n${stderr}`).not.toBeNull();
    expect(verdict?.error, stderr).toBeUndefined();
    expect(verdict).toEqual({
      mode: 'unlocked',
      ok: true,
      readBack: true,
      deleted: true,
      goneAfterDelete: true,
      deleteAgain: false,
      open: { ok: true, backend: 'keychain' },
    });
    expect(code).toBe(0);
  }, 60_000);

  it('fails closed, with what to do, when no keyring is unlocked', async () => {
    const { verdict, stderr } = await runInSession('locked');
    expect(verdict, stderr).not.toBeNull();
    expect(verdict?.open?.ok).toBe(false);
    expect(verdict?.open?.reason).toMatch(/^The OS keychain is not usable \(.+\)\. Install and unlock a Secret Service .* --allow-file-secret-store /);
  }, 60_000);
});
