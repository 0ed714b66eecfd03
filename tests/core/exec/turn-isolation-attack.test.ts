// The attack: a spy runtime, run by the real executor, tries to read the runner secret
// (file store and Secret Service over D-Bus), an ssh key, the operator's own claude and
// codex configuration, a private variable of the runner's environment, and the runner's
// /proc/<pid>/environ. Each run has its own D-Bus session with an unlocked gnome-keyring
// and a throwaway HOME (never the developer's). Linux only; bubblewrap runs need bwrap.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCommandRunner } from '../../../main/core/exec/process-runner';
import { commandWorks, probeIsolation } from '../../../main/core/exec/isolation';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/attack-session.ts', import.meta.url));
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const missing = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool'].filter((t) => !has(t));
const skipReason = process.platform !== 'linux' ? 'not Linux' : missing.length > 0 ? `${missing.join(', ')} not installed` : '';
// bwrap installed is not enough: a kernel or container may forbid the namespaces it needs.
const probed = process.platform === 'linux' ? await probeIsolation({ platform: 'linux', which: createCommandRunner().which, works: commandWorks }) : null;
const noBwrap = probed?.level !== 'bubblewrap';

const SESSION_SCRIPT = [
  'set -eu',
  'mkdir -p -m 700 "$XDG_RUNTIME_DIR"',
  'printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null',
  'exec "$NODE_BIN" --import tsx "$2" "$1"',
].join('\n');

interface Verdict {
  level: string;
  status: string;
  summaryHead: string | null;
  findings: {
    secretFile: boolean;
    keyringOwnEnv: boolean;
    keyringKnownAddress: boolean;
    sshKey: boolean;
    codexConfig: boolean;
    claudeSettings: boolean;
    claudeSignIn: boolean;
    hostEnviron: boolean;
    ownEnvCanary: boolean;
    apiKey: boolean;
    ownEnvNames: string[];
    stdinBytes: number;
    keyringReachableFromHost: boolean;
  } | null;
}

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'rt-attack-home-'));
  mkdirSync(join(home, 'run'), { mode: 0o700 });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function attack(level: 'bubblewrap' | 'environment'): Promise<{ verdict: Verdict | null; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'DISPLAY', 'WAYLAND_DISPLAY', 'GNOME_KEYRING_CONTROL', 'NODE_OPTIONS']) delete env[name];
  Object.assign(env, {
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, 'cache'),
    XDG_RUNTIME_DIR: join(home, 'run'),
    KEYRING_PASSWORD: randomBytes(12).toString('hex'),
    SPY_CANARY_TOKEN: `canary-${randomBytes(8).toString('hex')}`,
    NODE_BIN: process.execPath,
  });
  return new Promise((resolve) => {
    const child = spawn('dbus-run-session', ['--', 'bash', '-c', SESSION_SCRIPT, 'attack-session', level, fixture], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 60_000);
    child.on('close', () => {
      clearTimeout(timer);
      const line = stdout
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .pop();
      resolve({ verdict: line ? (JSON.parse(line) as Verdict) : null, stderr: stderr.slice(-3000) });
    });
  });
}

const RUNNER_NAMES = /^(RUNNER_|ROST_|DBUS_|XDG_RUNTIME_DIR$|SPY_CANARY|KEYRING_PASSWORD$|NODE_BIN$)/;

describe.skipIf(skipReason !== '')(`a spy runtime${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it.skipIf(noBwrap)(
    `finds nothing under bubblewrap, even told where the secrets are${noBwrap ? ` (skipped: ${probed?.note ?? 'not Linux'})` : ''}`,
    async () => {
      const { verdict, stderr } = await attack('bubblewrap');
      expect(verdict?.findings, `${verdict?.summaryHead ?? ''}\n${stderr}`).toBeTruthy();
      expect(verdict?.level).toBe('bubblewrap');
      const f = verdict!.findings!;
      expect(f.keyringReachableFromHost).toBe(true); // the secret is there for whoever can reach the bus
      expect({
        secretFile: f.secretFile,
        keyringOwnEnv: f.keyringOwnEnv,
        keyringKnownAddress: f.keyringKnownAddress,
        sshKey: f.sshKey,
        codexConfig: f.codexConfig,
        claudeSettings: f.claudeSettings,
        hostEnviron: f.hostEnviron,
        ownEnvCanary: f.ownEnvCanary,
        apiKey: f.apiKey,
      }).toEqual({
        secretFile: false,
        keyringOwnEnv: false,
        keyringKnownAddress: false,
        sshKey: false,
        codexConfig: false,
        claudeSettings: false,
        hostEnviron: false,
        ownEnvCanary: false,
        apiKey: false,
      });
      expect(f.ownEnvNames.filter((n) => RUNNER_NAMES.test(n))).toEqual([]);
      expect(f.stdinBytes).toBe(4096);
      // What it may reach: its own sign-in file, so the real claude stays signed in.
      expect(f.claudeSignIn).toBe(true);
    },
    90_000,
  );

  it('with the environment only, finds no environment canary and no secret through its own environment', async () => {
    const { verdict, stderr } = await attack('environment');
    expect(verdict?.findings, `${verdict?.summaryHead ?? ''}\n${stderr}`).toBeTruthy();
    const f = verdict!.findings!;
    expect(verdict?.level).toBe('environment');
    expect(f.keyringReachableFromHost).toBe(true);
    expect(f.ownEnvCanary).toBe(false);
    expect(f.keyringOwnEnv).toBe(false);
    expect(f.ownEnvNames.filter((n) => RUNNER_NAMES.test(n))).toEqual([]);
    // What the environment alone does not protect (README "What a turn can reach"), and the
    // proof that the spy's probes work, so that "nothing" under bubblewrap means nothing:
    // files of the same user (the owner-only file store, ~/.ssh, the operator's agent
    // config), the runner's /proc/<pid>/environ, and the Secret Service for a program that
    // finds the bus address.
    expect({
      secretFile: f.secretFile,
      keyringKnownAddress: f.keyringKnownAddress,
      sshKey: f.sshKey,
      codexConfig: f.codexConfig,
      claudeSettings: f.claudeSettings,
      hostEnviron: f.hostEnviron,
      // No sandbox, no broker: the turn could read the operator's files anyway.
      apiKey: f.apiKey,
    }).toEqual({ secretFile: true, keyringKnownAddress: true, sshKey: true, codexConfig: true, claudeSettings: true, hostEnviron: true, apiKey: true });
  }, 90_000);
});

if (skipReason) {
  it.skip(`attack tests need Linux, dbus-run-session, gnome-keyring-daemon and secret-tool (${skipReason})`, () => {});
}
