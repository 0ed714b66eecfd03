import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFetch } from '../../../main/core/connectors/node-fetch';
import { RegistryUpdateCheck, UPDATE_CHECK_PERIOD_MS, updateLine } from '../../../main/core/updates/registry-update-check';
import { FakeClock } from '../../helpers/fake-clock';
import { testLogging } from '../../helpers/test-logger';

/** A loopback stand-in for registry.npmjs.org/runner-tray/latest: answers `body` and counts the asks. */
let server: Server;
let url = '';
let body = '';
let status = 200;
let asks = 0;
let dir = '';
beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-updates-'));
  asks = 0;
  status = 200;
  body = JSON.stringify({ name: 'runner-tray', version: '0.2.0' });
  server = createServer((_req, res) => {
    asks++;
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/runner-tray/latest`;
});
afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function checker(clock: FakeClock, enabled = () => true) {
  const told: string[] = [];
  let heard: (version: string) => void = () => undefined;
  const check = new RegistryUpdateCheck({
    currentVersion: '0.1.0',
    url,
    fetch: nodeFetch,
    clock,
    stateFile: path.join(dir, 'update-check.json'),
    enabled,
    log: testLogging().log,
    onAvailable: (version) => {
      told.push(version);
      heard(version);
    },
  });
  const next = () => new Promise<string>((resolve) => (heard = resolve));
  return { check, told, next };
}

describe('the headless update check', () => {
  it('asks the registry at most once a day, across restarts, and tells each newer version once', async () => {
    const clock = new FakeClock();
    const first = checker(clock);
    await first.check.start();
    expect(asks).toBe(1);
    expect(first.told).toEqual(['0.2.0']);
    expect(JSON.parse(readFileSync(path.join(dir, 'update-check.json'), 'utf8'))).toEqual({ checkedAt: clock.now(), latest: '0.2.0' });
    first.check.stop();

    // A restart an hour later: no ask, the version it knows is still told.
    clock.advance(3_600_000);
    const again = checker(clock);
    await again.check.start();
    expect(asks).toBe(1);
    expect(again.told).toEqual(['0.2.0']);
    expect(again.check.available).toBe('0.2.0');

    body = JSON.stringify({ version: '0.3.0' });
    const heard = again.next();
    clock.advance(UPDATE_CHECK_PERIOD_MS - 3_600_000 - 1);
    expect(asks).toBe(1);
    clock.advance(1);
    expect(await heard).toBe('0.3.0');
    expect(asks).toBe(2);
    expect(again.told).toEqual(['0.2.0', '0.3.0']);
    again.check.stop();
  });

  it('asks nothing and tells nothing when the operator turned it off', async () => {
    const clock = new FakeClock();
    const off = checker(clock, () => false);
    await off.check.start();
    clock.advance(UPDATE_CHECK_PERIOD_MS * 3);
    expect(asks).toBe(0);
    expect(off.told).toEqual([]);
    off.check.stop();
  });

  it.each([
    ['not JSON', 200, '<html>oops</html>'],
    ['no version', 200, '{"name":"runner-tray"}'],
    ['not a version', 200, '{"version":"latest, trust me"}'],
    ['a server error', 500, '{"version":"9.9.9"}'],
  ])('a bad answer (%s) is no crash and no notice', async (_what, code, text) => {
    status = code;
    body = text;
    const clock = new FakeClock();
    const bad = checker(clock);
    await bad.check.start();
    expect(asks).toBe(1);
    expect(bad.told).toEqual([]);
    expect(bad.check.available).toBeNull();
    bad.check.stop();
  });

  it('an older or equal version is not news', async () => {
    body = JSON.stringify({ version: '0.1.0' });
    const same = checker(new FakeClock());
    await same.check.start();
    expect(same.told).toEqual([]);
    same.check.stop();
    expect(updateLine('Runner Tray', '0.2.0', '0.1.0')).toBe('Runner Tray 0.2.0 is available (you run 0.1.0).');
  });
});
