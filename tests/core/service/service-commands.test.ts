import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { headlessEntry } from '../../../main/headless/entry-point';
import { runServiceCommand } from '../../../main/headless/service/service-cli';
import { fakePort, io } from './fake-port';
import { systemdQuote, systemdUnit } from '../../../main/headless/service/systemd-unit';

const BUNDLE = '/opt/runner-tray/dist/headless/cli.mjs';

const env = { PATH: '/usr/local/bin:/usr/bin', RUNNER_NAME: 'rack-7', RUNNER_TRAY_QUIT_DRAIN_MS: '120000', HOME: '/home/ada', SECRET_THING: 'nope' };
const base = { repoRoot: '/opt/runner-tray', nodePath: '/usr/bin/node' };

let tmp = '';
afterEach(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  tmp = '';
});

describe('runner-tray-headless service on Linux (systemd user unit)', () => {
  it('install writes the unit and enables it now; the unit drains on stop and restarts on failure', async () => {
    const sys = fakePort('linux');
    const t = io();
    const code = await runServiceCommand(['install', '--name', 'rack-7', '--', '--execute', '--state-file', '/var/lib/rost/runner state.json'], {
      env,
      ...t,
      port: sys.port,
      ...base,
    });
    expect(code).toBe(0);
    const file = '/home/ada/.config/systemd/user/rack-7.service';
    expect([...sys.files.keys()]).toEqual([file]);
    const unit = sys.files.get(file)!;
    expect(unit).toContain('ExecStart=/usr/bin/node /opt/runner-tray/dist/headless/cli.mjs --execute --state-file "/var/lib/rost/runner state.json"\n');
    expect(unit).toContain('WorkingDirectory=/opt/runner-tray\n');
    expect(unit).toContain('Restart=on-failure\n');
    expect(unit).toContain('KillMode=mixed\n');
    expect(unit).toContain('RestartPreventExitStatus=2 78\n');
    // The drain limit (120 s) plus 30 s to report what the drain canceled.
    expect(unit).toContain('TimeoutStopSec=150\n');
    expect(unit).toContain('Environment=RUNNER_TRAY_QUIT_DRAIN_MS=120000\n');
    expect(unit).toContain('Environment=RUNNER_NAME=rack-7\n');
    expect(unit).toContain('Environment=PATH=/usr/local/bin:/usr/bin\n');
    // glibc's allocator settings for a host that runs for months (malloc-env.ts).
    expect(unit).toContain('Environment=MALLOC_MMAP_THRESHOLD_=65536\n');
    expect(unit).toContain('Environment=MALLOC_TRIM_THRESHOLD_=131072\n');
    expect(unit).not.toContain('SECRET_THING');
    expect(unit).toContain('loginctl enable-linger');
    expect(unit).toContain('WantedBy=default.target');
    expect(sys.calls).toEqual([
      ['systemctl', '--user', 'show-environment'],
      ['systemctl', '--user', 'daemon-reload'],
      ['systemctl', '--user', 'enable', '--now', 'rack-7.service'],
    ]);
    expect(t.text()).toContain('loginctl enable-linger ada');
  });

  it('runs plain node on the bundle', () => {
    const built = headlessEntry('/opt/runner-tray', '/usr/bin/node');
    expect(built).toEqual({ command: '/usr/bin/node', args: [BUNDLE], workingDirectory: '/opt/runner-tray' });
  });

  it('install refuses while the bundle is not built, and says how to build it', async () => {
    const sys = fakePort('linux', {}, { unbuilt: true });
    const t = io();
    expect(await runServiceCommand(['install'], { env, ...t, port: sys.port, ...base })).toBe(1);
    expect(t.errors()).toContain(`${BUNDLE} is missing; build it first with npm run build:headless`);
    expect(sys.files.size).toBe(0);
    expect(sys.calls).toEqual([]);
  });

  it.each([
    ['start', ['systemctl', '--user', 'start', 'runner-tray.service']],
    ['stop', ['systemctl', '--user', 'stop', 'runner-tray.service']],
    ['restart', ['systemctl', '--user', 'restart', 'runner-tray.service']],
  ])('%s calls systemctl --user', async (action, call) => {
    const sys = fakePort('linux');
    expect(await runServiceCommand([action], { env, ...io(), port: sys.port, ...base })).toBe(0);
    expect(sys.calls).toEqual([['systemctl', '--user', 'show-environment'], call]);
  });

  it("status shows the manager's state and the runner's last status line", async () => {
    const sys = fakePort('linux', {
      'systemctl --user is-active runner-tray.service': { stdout: 'active\n' },
      'journalctl --user -u runner-tray.service -n 500 --no-pager -o cat': {
        stdout: 'Status: Pairing… — x\nheartbeat ok #1 runner_id=r claude=true codex=false\nStatus: Idle — Connected and waiting for work.\n',
      },
    });
    sys.files.set('/home/ada/.config/systemd/user/runner-tray.service', '[Unit]\n');
    const t = io();
    expect(await runServiceCommand(['status'], { env, ...t, port: sys.port, ...base })).toBe(0);
    expect(t.text()).toBe('runner-tray: active\nStatus: Idle — Connected and waiting for work.\n');
  });

  it('logs prints the last lines (follows with --follow); uninstall disables, removes the unit and reloads', async () => {
    const sys = fakePort('linux');
    await runServiceCommand(['install'], { env, ...io(), port: sys.port, ...base });
    await runServiceCommand(['logs'], { env, ...io(), port: sys.port, ...base });
    await runServiceCommand(['logs', '--follow'], { env, ...io(), port: sys.port, ...base });
    expect(sys.attached).toEqual([
      ['journalctl', '--user', '-u', 'runner-tray.service', '-n', '100', '-o', 'cat', '--no-pager'],
      ['journalctl', '--user', '-u', 'runner-tray.service', '-n', '100', '-o', 'cat', '-f'],
    ]);
    sys.calls.length = 0;
    const t = io();
    expect(await runServiceCommand(['uninstall'], { env, ...t, port: sys.port, ...base })).toBe(0);
    expect(sys.files.size).toBe(0);
    expect(sys.calls).toEqual([
      ['systemctl', '--user', 'show-environment'],
      ['systemctl', '--user', 'disable', '--now', 'runner-tray.service'],
      ['systemctl', '--user', 'daemon-reload'],
    ]);
    expect(t.text()).toContain('The data folder and pairing are kept.');
  });

  it('refuses to install a unit whose host flags would not start', async () => {
    const sys = fakePort('linux');
    const t = io();
    expect(await runServiceCommand(['install', '--', '--execute', '--heartbeat-ms', '10'], { env, ...t, port: sys.port, ...base })).toBe(2);
    expect(t.errors()).toBe('runner-tray service: not installed: --heartbeat-ms must be an integer >= 1000.\n');
    expect(await runServiceCommand(['install', '--', '--once'], { env, ...io(), port: sys.port, ...base })).toBe(2);
    expect(sys.files.size).toBe(0);
    expect(sys.calls).toEqual([]);
  });

  it('says what failed when systemctl does', async () => {
    const sys = fakePort('linux', { 'systemctl --user start runner-tray.service': { code: 5, stderr: 'Unit runner-tray.service not found.\n' } });
    const t = io();
    expect(await runServiceCommand(['start'], { env, ...t, port: sys.port, ...base })).toBe(1);
    expect(t.errors()).toBe('runner-tray service: systemctl --user start runner-tray.service failed (5): Unit runner-tray.service not found.\n');
  });

  it.each([
    [['frobnicate'], 'Unknown service command: frobnicate.'],
    [['start', '--name', '../etc'], '--name must be 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit.'],
    [['start', '--', '--execute'], 'Host flags after -- are for install only.'],
    [['status', '--verbose'], 'Unknown option for service status: --verbose.'],
  ])('refuses %j with exit 2', async (argv, message) => {
    const sys = fakePort('linux');
    const t = io();
    expect(await runServiceCommand(argv, { env, ...t, port: sys.port, ...base })).toBe(2);
    expect(t.errors().split('\n')[0]).toBe(`runner-tray service: ${message}`);
    expect(sys.calls).toEqual([]);
  });

  it('quotes what systemd would otherwise expand', () => {
    expect(systemdQuote('/plain/path')).toBe('/plain/path');
    expect(systemdQuote('100%')).toBe('100%%');
    expect(systemdQuote('$HOME')).toBe('"$$HOME"');
    expect(systemdQuote('say "hi"')).toBe('"say \\"hi\\""');
  });

  it('passes systemd-analyze verify', (ctx) => {
    const probe = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
    if (probe.error || probe.status !== 0) {
      ctx.skip('systemd-analyze is not installed here (apt package: systemd)');
      return;
    }
    tmp = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-unit-'));
    const file = path.join(tmp, 'runner-tray-verify.service');
    writeFileSync(
      file,
      systemdUnit({
        name: 'runner-tray-verify',
        // Binaries that exist here, so verify checks everything else.
        entry: { command: process.execPath, args: ['/opt/runner tray/dist/headless/cli.mjs'], workingDirectory: tmp },
        hostArgs: ['--execute', '--state-file', '/var/lib/rost/100% state.json'],
        env: { PATH: '/usr/bin', RUNNER_NAME: 'a "quoted" name', RUNNER_TRAY_QUIT_DRAIN_MS: '300000' },
        secretEnv: {},
        drainMs: 300_000,
      }),
    );
    // As a user unit (needs a runtime dir; a CI container has none, so one is given), else as a system unit.
    let verified = spawnSync('systemd-analyze', ['verify', '--user', file], { encoding: 'utf8', env: { ...process.env, XDG_RUNTIME_DIR: tmp } });
    if (/Failed to initialize manager/.test(verified.stderr)) verified = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
    const complaints = `${verified.stdout}${verified.stderr}`.split('\n').filter((l) => l.includes('runner-tray-verify'));
    expect(verified.status).toBe(0);
    expect(complaints).toEqual([]);
  });
});

describe('runner-tray-headless service on macOS (launchd agent)', () => {
  it('install writes the plist and bootstraps it; stop sends SIGTERM so the host drains', async () => {
    const sys = fakePort('darwin');
    expect(await runServiceCommand(['install', '--', '--execute'], { env, ...io(), port: sys.port, ...base })).toBe(0);
    const file = '/home/ada/Library/LaunchAgents/dev.runnertray.runner-tray.plist';
    const plist = sys.files.get(file)!;
    expect(plist).toContain('<key>Label</key>\n  <string>dev.runnertray.runner-tray</string>');
    expect(plist).toContain('<string>/usr/bin/node</string>\n    <string>/opt/runner-tray/dist/headless/cli.mjs</string>\n    <string>--execute</string>');
    expect(plist).toContain('<key>SuccessfulExit</key>\n    <false/>');
    expect(plist).toContain('<key>ExitTimeOut</key>\n  <integer>150</integer>');
    expect(plist).toContain('<string>/home/ada/Library/Logs/Runner Tray/runner-tray.log</string>');
    expect(sys.calls).toEqual([
      ['launchctl', 'bootout', 'gui/1000/dev.runnertray.runner-tray'],
      ['launchctl', 'bootstrap', 'gui/1000', file],
    ]);
    sys.calls.length = 0;
    await runServiceCommand(['stop'], { env, ...io(), port: sys.port, ...base });
    await runServiceCommand(['restart'], { env, ...io(), port: sys.port, ...base });
    await runServiceCommand(['uninstall'], { env, ...io(), port: sys.port, ...base });
    expect(sys.calls).toEqual([
      ['launchctl', 'kill', 'SIGTERM', 'gui/1000/dev.runnertray.runner-tray'],
      ['launchctl', 'kickstart', '-k', 'gui/1000/dev.runnertray.runner-tray'],
      ['launchctl', 'bootout', 'gui/1000/dev.runnertray.runner-tray'],
    ]);
    expect(sys.files.has(file)).toBe(false);
  });

  it('status reads the launchd state and the last status line from the log; logs prints it, --follow follows it', async () => {
    const sys = fakePort('darwin', {
      'launchctl print gui/1000/dev.runnertray.runner-tray': { stdout: 'gui/1000/dev.runnertray.runner-tray = {\n\tstate = running\n' },
    });
    sys.files.set('/home/ada/Library/Logs/Runner Tray/runner-tray.log', 'Status: Working — 1 of 1\n');
    sys.files.set('/home/ada/Library/LaunchAgents/dev.runnertray.runner-tray.plist', '<plist/>');
    const t = io();
    await runServiceCommand(['status'], { env, ...t, port: sys.port, ...base });
    expect(t.text()).toBe('runner-tray: running\nStatus: Working — 1 of 1\n');
    await runServiceCommand(['logs'], { env, ...io(), port: sys.port, ...base });
    await runServiceCommand(['logs', '--follow'], { env, ...io(), port: sys.port, ...base });
    expect(sys.attached).toEqual([
      ['tail', '-n', '100', '/home/ada/Library/Logs/Runner Tray/runner-tray.log'],
      ['tail', '-n', '100', '-F', '/home/ada/Library/Logs/Runner Tray/runner-tray.log'],
    ]);
  });
});

describe('runner-tray-headless service on Windows (Task Scheduler)', () => {
  it('install registers a logon task that restarts on failure and logs to a file', async () => {
    const sys = fakePort('win32');
    const winEnv = { ...env, LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local' };
    expect(
      await runServiceCommand(['install', '--name', 'box'], {
        env: winEnv,
        ...io(),
        port: sys.port,
        ...base,
        repoRoot: 'C:\\runner-tray',
        nodePath: 'C:\\node\\node.exe',
      }),
    ).toBe(0);
    const [xmlFile] = [...sys.files.keys()];
    expect(xmlFile).toMatch(/Runner Tray[\\/]box\.task\.xml$/);
    expect(sys.encodings.get(xmlFile!)).toBe('utf16le');
    const xml = sys.files.get(xmlFile!)!;
    expect(xml).toContain('<LogonTrigger>');
    expect(xml).toContain('<RestartOnFailure>\n      <Interval>PT1M</Interval>');
    expect(xml).toContain('<ExecutionTimeLimit>PT0S</ExecutionTimeLimit>');
    expect(xml).toContain('set &quot;RUNNER_TRAY_QUIT_DRAIN_MS=120000&quot;');
    expect(xml).toMatch(/box\.log&quot; 2&gt;&amp;1/);
    expect(sys.calls).toEqual([
      ['schtasks', '/Create', '/TN', 'Runner Tray\\box', '/XML', xmlFile, '/F'],
      ['schtasks', '/Run', '/TN', 'Runner Tray\\box'],
    ]);
  });
});
