import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../../../main/core/bootstrap';
import { markRunning, startFleet, type Fleet } from '../../../main/headless/fleet/start';

let fleet: Fleet | null = null;
let dir = '';
afterEach(async () => {
  await fleet?.close();
  fleet = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const core = { host: { subscribe: () => () => undefined }, log: { warn: () => undefined } } as unknown as Core;

describe('the headless fleet start', () => {
  it('says where /metrics is, and warns when it listens beyond this machine', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-fleet-'));
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: { write: (l: string) => out.push(l) }, err: { write: (l: string) => err.push(l) }, dataDir: dir };
    fleet = await startFleet(core, { metrics: { host: '0.0.0.0', port: 0, loopback: false }, webhookUrl: null }, io);
    expect(out).toEqual([`Metrics: http://0.0.0.0:${fleet.metrics!.port}/metrics (no token: Prometheus scrapes it as is)\n`]);
    expect(err).toEqual(['runner-tray headless: warning: /metrics listens on 0.0.0.0, beyond this machine, without a token; keep it behind a firewall.\n']);
    await fleet.close();
    fleet = await startFleet(
      core,
      { metrics: { host: '127.0.0.1', port: 0, loopback: true }, webhookUrl: null },
      { ...io, err: { write: (l: string) => err.push(l) } },
    );
    expect(err).toHaveLength(1);
  });

  it('marks the data folder as running: a mark already there means the last host crashed; a clean exit clears it, exit 70 keeps it', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-fleet-'));
    const exits: ((code: number) => void)[] = [];
    const proc = { once: (_event: string, listener: (code: number) => void) => exits.push(listener) } as unknown as Pick<NodeJS.Process, 'once'>;
    expect(markRunning(dir, proc)).toBe(false);
    exits.shift()!(70);
    expect(markRunning(dir, proc)).toBe(true);
    exits.shift()!(0);
    expect(existsSync(path.join(dir, 'headless-running'))).toBe(false);
    expect(markRunning(dir, proc)).toBe(false);
  });
});
