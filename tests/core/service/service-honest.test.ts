import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeEnvFile } from '../../../main/headless/service/env-file';
import { runServiceCommand } from '../../../main/headless/service/service-cli';
import { fakePort, io } from './fake-port';

/** What `service …` must not do: hang, lie, leave files behind, or put a secret where others read it. */
const env = {
  PATH: '/usr/bin',
  RUNNER_NAME: 'rack-7',
  RUNNER_TRAY_TOKEN: 'tok-secret-1',
  RUNNER_CONTROL_PLANE_URL: 'https://rost.example.com',
  HOME: '/home/ada',
};
const base = { repoRoot: '/opt/runner-tray', nodePath: '/usr/bin/node' };
const USER_UNIT = '/home/ada/.config/systemd/user/runner-tray.service';
const NO_BUS = { code: 1, stderr: 'Failed to connect to bus: No medium found\n' };
let tmp = '';
afterEach(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  tmp = '';
});

describe('no systemd user manager (root on a server, a container, SSH without lingering)', () => {
  it('says what is missing and offers --system, and writes nothing', async () => {
    const sys = fakePort('linux', { 'systemctl --user show-environment': NO_BUS });
    const t = io();
    expect(await runServiceCommand(['install'], { env, ...t, port: sys.port, ...base })).toBe(1);
    expect(t.errors()).toContain('there is no systemd user manager for ada in this session (XDG_RUNTIME_DIR is not set, DBUS_SESSION_BUS_ADDRESS is not set)');
    expect(t.errors()).toContain('sudo runner-tray-headless service install --system');
    expect(t.errors()).toContain('sudo loginctl enable-linger ada');
    expect(sys.files.size).toBe(0);
    expect(sys.calls).toEqual([['systemctl', '--user', 'show-environment']]);
  });

  it('--system as root writes a system unit under /etc/systemd/system and uses systemctl without --user', async () => {
    const sys = fakePort('linux', {}, { uid: 0 });
    const t = io();
    expect(await runServiceCommand(['install', '--system', '--', '--execute'], { env: { ...env, SUDO_USER: 'ada' }, ...t, port: sys.port, ...base })).toBe(0);
    const unit = sys.files.get('/etc/systemd/system/runner-tray.service')!;
    expect(unit).toContain('WantedBy=multi-user.target\n');
    expect(unit).toContain('User=ada\n');
    expect(sys.calls).toEqual([
      ['systemctl', 'daemon-reload'],
      ['systemctl', 'enable', '--now', 'runner-tray.service'],
    ]);
    expect(t.text()).not.toContain('enable-linger');
  });

  it('--system refuses without root', async () => {
    const sys = fakePort('linux');
    const t = io();
    expect(await runServiceCommand(['install', '--system'], { env, ...t, port: sys.port, ...base })).toBe(1);
    expect(t.errors()).toBe('runner-tray service: --system writes /etc/systemd/system and needs root: run it with sudo.\n');
    expect(sys.files.size).toBe(0);
  });
});

describe('a failed install leaves nothing behind', () => {
  it('systemd: enable fails → the unit and its secrets file are removed and systemd reloaded', async () => {
    const sys = fakePort('linux', { 'systemctl --user enable --now runner-tray.service': { code: 1, stderr: 'Unit is masked.\n' } });
    const t = io();
    expect(await runServiceCommand(['install'], { env, ...t, port: sys.port, ...base })).toBe(1);
    expect(t.errors()).toContain('Unit is masked.');
    expect(sys.files.size).toBe(0);
    expect(sys.calls.slice(-2)).toEqual([
      ['systemctl', '--user', 'disable', 'runner-tray.service'],
      ['systemctl', '--user', 'daemon-reload'],
    ]);
  });

  it('launchd: bootstrap fails → the plist is removed', async () => {
    const sys = fakePort('darwin', { 'launchctl bootstrap gui/1000 /home/ada/Library/LaunchAgents/dev.runnertray.runner-tray.plist': { code: 5 } });
    expect(await runServiceCommand(['install'], { env, ...io(), port: sys.port, ...base })).toBe(1);
    expect(sys.files.size).toBe(0);
  });

  it('Windows: the task cannot run → it is deleted and its XML removed', async () => {
    const sys = fakePort('win32', { 'schtasks /Run /TN Runner Tray\\runner-tray': { code: 1 } });
    expect(await runServiceCommand(['install'], { env, ...io(), port: sys.port, ...base, repoRoot: 'C:\\rt', nodePath: 'C:\\node.exe' })).toBe(1);
    expect(sys.files.size).toBe(0);
    expect(sys.calls.at(-1)).toEqual(['schtasks', '/Delete', '/TN', 'Runner Tray\\runner-tray', '/F']);
  });
});

describe('status tells a script the truth through its exit code', () => {
  it('4 when not installed, 3 when installed but not running, 0 when running', async () => {
    const stopped = fakePort('linux', { 'systemctl --user is-active runner-tray.service': { code: 3, stdout: 'inactive\n' } });
    const t = io();
    expect(await runServiceCommand(['status'], { env, ...t, port: stopped.port, ...base })).toBe(4);
    expect(t.text()).toContain('runner-tray: not installed');
    stopped.files.set(USER_UNIT, '[Unit]\n');
    expect(await runServiceCommand(['status'], { env, ...io(), port: stopped.port, ...base })).toBe(3);
    const running = fakePort('darwin', { 'launchctl print gui/1000/dev.runnertray.runner-tray': { stdout: '\tstate = running\n' } });
    expect(await runServiceCommand(['status'], { env, ...io(), port: running.port, ...base })).toBe(4);
    running.files.set('/home/ada/Library/LaunchAgents/dev.runnertray.runner-tray.plist', '<plist/>');
    expect(await runServiceCommand(['status'], { env, ...io(), port: running.port, ...base })).toBe(0);
  });
});

describe('logs never hangs unless asked to follow', () => {
  it('Windows: -Tail 100, and -Wait only with --follow', async () => {
    const sys = fakePort('win32');
    await runServiceCommand(['logs'], { env, ...io(), port: sys.port, ...base });
    await runServiceCommand(['logs', '-f'], { env, ...io(), port: sys.port, ...base });
    const [once, follow] = sys.attached.map((a) => a.at(-1)!);
    expect(once).toMatch(/-Tail 100$/);
    expect(follow).toMatch(/-Tail 100 -Wait$/);
  });

  it('--follow is for logs only', async () => {
    const t = io();
    expect(await runServiceCommand(['status', '--follow'], { env, ...t, port: fakePort('linux').port, ...base })).toBe(2);
  });
});

describe('secrets stay out of the unit', () => {
  it('the unit is 0600 and names a 0600 EnvironmentFile holding the token; no secret value is in the unit', async () => {
    const sys = fakePort('linux');
    expect(await runServiceCommand(['install'], { env, ...io(), port: sys.port, ...base })).toBe(0);
    const unit = sys.files.get(USER_UNIT)!;
    const secrets = '/home/ada/.config/runner-tray/runner-tray.env';
    expect(unit).not.toContain('tok-secret-1');
    expect(unit).not.toContain('RUNNER_TRAY_TOKEN');
    expect(unit).toContain(`EnvironmentFile=${secrets}\n`);
    expect(unit).toContain('Environment=RUNNER_CONTROL_PLANE_URL=https://rost.example.com\n');
    expect(sys.files.get(secrets)).toBe('RUNNER_TRAY_TOKEN="tok-secret-1"\n');
    expect(sys.modes.get(USER_UNIT)).toBe(0o600);
    expect(sys.modes.get(secrets)).toBe(0o600);
  });

  it('without a secret there is no EnvironmentFile; uninstall removes both files', async () => {
    const sys = fakePort('linux');
    const { RUNNER_TRAY_TOKEN: _, ...plain } = env;
    await runServiceCommand(['install'], { env: plain, ...io(), port: sys.port, ...base });
    expect(sys.files.get(USER_UNIT)).not.toContain('EnvironmentFile=');
    const again = fakePort('linux');
    await runServiceCommand(['install'], { env, ...io(), port: again.port, ...base });
    await runServiceCommand(['uninstall'], { env, ...io(), port: again.port, ...base });
    expect(again.files.size).toBe(0);
  });
});

describe('secrets stay out of the plist and the task XML', () => {
  const TRICKY = `it's a "token" with two kinds of quote in it`;

  it('launchd: the plist names a 0600 env file node loads; the token is only there', async () => {
    const sys = fakePort('darwin');
    expect(await runServiceCommand(['install', '--', '--execute'], { env, ...io(), port: sys.port, ...base })).toBe(0);
    const plistFile = '/home/ada/Library/LaunchAgents/dev.runnertray.runner-tray.plist';
    const secrets = '/home/ada/Library/Application Support/Runner Tray/service/runner-tray.env';
    const plist = sys.files.get(plistFile)!;
    expect(plist).not.toContain('tok-secret-1');
    expect(plist).not.toContain('RUNNER_TRAY_TOKEN');
    expect(plist).toContain(
      `<string>/usr/bin/node</string>\n    <string>--env-file=${secrets}</string>\n    <string>/opt/runner-tray/dist/headless/cli.mjs</string>`,
    );
    expect(plist).toContain('<key>RUNNER_CONTROL_PLANE_URL</key>\n    <string>https://rost.example.com</string>');
    expect(sys.files.get(secrets)).toBe("RUNNER_TRAY_TOKEN='tok-secret-1'\n");
    expect(sys.modes.get(secrets)).toBe(0o600);
    expect(sys.modes.get(plistFile)).toBe(0o600);
    await runServiceCommand(['uninstall'], { env, ...io(), port: sys.port, ...base });
    expect(sys.files.size).toBe(0);
  });

  it('launchd: without a secret there is no env file and no --env-file; a failed bootstrap removes the env file too', async () => {
    const { RUNNER_TRAY_TOKEN: _, ...plain } = env;
    const sys = fakePort('darwin');
    await runServiceCommand(['install'], { env: plain, ...io(), port: sys.port, ...base });
    expect([...sys.files.keys()]).toEqual(['/home/ada/Library/LaunchAgents/dev.runnertray.runner-tray.plist']);
    expect([...sys.files.values()][0]).not.toContain('--env-file');
    const failing = fakePort('darwin', { 'launchctl bootstrap gui/1000 /home/ada/Library/LaunchAgents/dev.runnertray.runner-tray.plist': { code: 5 } });
    expect(await runServiceCommand(['install'], { env, ...io(), port: failing.port, ...base })).toBe(1);
    expect(failing.files.size).toBe(0);
  });

  it('Windows: the task XML runs node with --env-file; the token is only in the 0600 file; uninstall removes it', async () => {
    const sys = fakePort('win32');
    const winEnv = { ...env, LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local' };
    expect(await runServiceCommand(['install'], { env: winEnv, ...io(), port: sys.port, ...base, repoRoot: 'C:\\rt', nodePath: 'C:\\node.exe' })).toBe(0);
    // Named as path.join names them on the machine that installs (here: not Windows).
    const xmlFile = [...sys.files.keys()].find((f) => /Runner Tray[\\/]runner-tray\.task\.xml$/.test(f))!;
    const secrets = xmlFile.replace(/\.task\.xml$/, '.env');
    expect([...sys.files.keys()].sort()).toEqual([xmlFile, secrets].sort());
    expect(secrets.startsWith('C:\\Users\\ada\\AppData\\Local')).toBe(true);
    const xml = sys.files.get(xmlFile)!;
    expect(xml).not.toContain('tok-secret-1');
    expect(xml).not.toContain('RUNNER_TRAY_TOKEN');
    expect(xml).toContain(`&quot;C:\\node.exe&quot; &quot;--env-file=${secrets}&quot; &quot;`);
    expect(sys.files.get(secrets)).toBe("RUNNER_TRAY_TOKEN='tok-secret-1'\n");
    expect(sys.modes.get(secrets)).toBe(0o600);
    await runServiceCommand(['uninstall'], { env: winEnv, ...io(), port: sys.port, ...base, repoRoot: 'C:\\rt', nodePath: 'C:\\node.exe' });
    expect(sys.files.size).toBe(0);
  });

  it('node reads back from the env file exactly the values install wrote, quotes and all', () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-env-'));
    const file = path.join(tmp, 'svc.env');
    const values = { RUNNER_TRAY_TOKEN: TRICKY, RUNNER_API_KEY: "it's `x` and 'y'", RUNNER_SECRET: '$HOME \\n # not a comment ' };
    writeFileSync(file, nodeEnvFile(values));
    const read = spawnSync(process.execPath, [`--env-file=${file}`, '-e', 'process.stdout.write(JSON.stringify(process.env))'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    });
    expect(read.status).toBe(0);
    expect(JSON.parse(read.stdout)).toMatchObject(values);
  });

  it('refuses a value node could not read back, and writes nothing', async () => {
    expect(() => nodeEnvFile({ RUNNER_TRAY_TOKEN: 'a\nb' })).toThrow(/RUNNER_TRAY_TOKEN cannot be written/);
    const sys = fakePort('darwin');
    const t = io();
    expect(await runServiceCommand(['install'], { env: { ...env, RUNNER_TRAY_TOKEN: `'\`"` }, ...t, port: sys.port, ...base })).toBe(1);
    expect(t.errors()).toContain('RUNNER_TRAY_TOKEN cannot be written to the service');
    expect(t.errors()).not.toContain('`');
    expect(sys.files.size).toBe(0);
  });
});
