import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runServiceCommand } from '../../../main/headless/service/service-cli';
import { NO_EXECUTOR_STATE } from '../../../main/core/planes/sechroom/executor-state';
import { fakePort, io } from './fake-port';

// `sechroom executor install` + `executor run` as a service of the platform: the unit runs
// the seed-style command line (`--plane sechroom …`) in the instance's checkout.

const env = {
  PATH: '/usr/local/bin:/usr/bin',
  HOME: '/home/ada',
  SECHROOM_TOKEN: 'sech-bearer-secret',
  SECHROOM_TENANT: 'tn_1',
  CODEX_BIN: '/opt/codex/bin/codex',
  OTHER_TOKEN: 'not-carried',
};
const base = { repoRoot: '/opt/runner-tray', nodePath: '/usr/bin/node' };
const plane = ['--plane', 'sechroom', '--control-plane', 'https://work.example.test/sechroom'];

let checkout = '';
afterEach(() => {
  if (checkout) rmSync(checkout, { recursive: true, force: true });
  checkout = '';
});

function withAdvertisement(state: Record<string, unknown>): string {
  checkout = mkdtempSync(path.join(os.tmpdir(), 'rt-service-sechroom-'));
  mkdirSync(path.join(checkout, '.sechroom'));
  writeFileSync(path.join(checkout, '.sechroom', 'executor.json'), JSON.stringify(state));
  return checkout;
}

describe('service install/status/uninstall of a Sechroom executor instance', () => {
  it('install from the checkout: a unit named after the instance that runs `--plane sechroom …` there, its bearer in the secrets file', async () => {
    const cwd = withAdvertisement({ schemaVersion: 1, instanceKey: 'codex-a', runtime: 'codex', laneId: 'lane-a', ttlSeconds: 600 });
    const sys = fakePort('linux');
    const t = io();
    const code = await runServiceCommand(['install', '--', ...plane, '--no-pr', '--allow-dirty-root'], { env, ...t, port: sys.port, ...base, cwd });
    expect({ code, err: t.text() }).toMatchObject({ code: 0 });
    const file = '/home/ada/.config/systemd/user/runner-tray-codex-a.service';
    const unit = sys.files.get(file)!;
    expect(unit).toContain(
      'ExecStart=/usr/bin/node /opt/runner-tray/dist/headless/cli.mjs --plane sechroom --control-plane https://work.example.test/sechroom --no-pr --allow-dirty-root\n',
    );
    expect(unit).toContain(`WorkingDirectory=${cwd}\n`);
    expect(unit).toContain('Environment=SECHROOM_TENANT=tn_1\n');
    expect(unit).toContain('Environment=CODEX_BIN=/opt/codex/bin/codex\n');
    expect(unit).not.toContain('sech-bearer-secret');
    expect(unit).not.toContain('OTHER_TOKEN');
    const secrets = '/home/ada/.config/runner-tray/runner-tray-codex-a.env';
    expect(sys.files.get(secrets)).toBe('SECHROOM_TOKEN="sech-bearer-secret"\n');
    expect(sys.modes.get(secrets)).toBe(0o600);
    expect(sys.calls.at(-1)).toEqual(['systemctl', '--user', 'enable', '--now', 'runner-tray-codex-a.service']);

    // status and uninstall by that name.
    const status = fakePort('linux', { 'systemctl --user is-active runner-tray-codex-a.service': { stdout: 'active\n' } });
    status.files.set(file, unit);
    const s = io();
    expect(await runServiceCommand(['status', '--name', 'runner-tray-codex-a'], { env, ...s, port: status.port, ...base })).toBe(0);
    expect(s.text()).toContain('runner-tray-codex-a: active');
    const u = io();
    expect(await runServiceCommand(['uninstall', '--name', 'runner-tray-codex-a'], { env, ...u, port: sys.port, ...base })).toBe(0);
    expect(sys.files.has(file)).toBe(false);
  });

  it('the instance flags on the line name it (launchd too); --name wins', async () => {
    checkout = mkdtempSync(path.join(os.tmpdir(), 'rt-service-sechroom-'));
    const sys = fakePort('darwin');
    const args = ['install', '--', ...plane, '--tenant', 'tn_2', '--instance-key', 'Codex B', '--root', '/work/widgets'];
    expect(await runServiceCommand(args, { env, ...io(), port: sys.port, ...base, cwd: checkout })).toBe(0);
    const [file, plist] = [...sys.files.entries()].find(([f]) => f.endsWith('.plist'))!;
    expect(file).toBe('/home/ada/Library/LaunchAgents/dev.runnertray.runner-tray-codex-b.plist');
    expect(plist).toContain('<string>--instance-key</string>\n    <string>Codex B</string>');
    expect(plist).toContain(`<key>WorkingDirectory</key>\n  <string>${checkout}</string>`);
    const named = fakePort('linux');
    expect(await runServiceCommand(['install', '--name', 'w1', ...args.slice(1)], { env, ...io(), port: named.port, ...base, cwd: checkout })).toBe(0);
    expect([...named.files.keys()]).toContain('/home/ada/.config/systemd/user/w1.service');
  });

  it('refuses what `executor run` would refuse, before writing anything', async () => {
    checkout = mkdtempSync(path.join(os.tmpdir(), 'rt-service-sechroom-'));
    const cases: [string[], string][] = [
      [plane, NO_EXECUTOR_STATE],
      [[...plane, '--instance-key', 'a', '--root', '/r', '--runtime', 'claude-code'], 'executor run drives runtime codex only (claude-code stays attached)'],
      [[...plane, '--instance-key', 'a', '--root', '/r', '--once'], '--once exits after one heartbeat; a service runs until stopped.'],
    ];
    for (const [hostArgs, message] of cases) {
      const sys = fakePort('linux');
      const t = io();
      expect(await runServiceCommand(['install', '--', ...hostArgs], { env, ...t, port: sys.port, ...base, cwd: checkout })).toBe(2);
      expect(t.errors()).toContain(`runner-tray service: not installed: ${message}`);
      expect(sys.files.size).toBe(0);
    }
  });
});
