import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_CONFIG } from '../../main/headless/exit-codes';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
let holder: net.Server | null = null;
let dataDir = '';
afterEach(async () => {
  await new Promise<void>((resolve) => (holder ? holder.close(() => resolve()) : resolve()));
  holder = null;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Holds a loopback port the way another host would. */
async function holdPort(host: string): Promise<number> {
  holder = net.createServer();
  await new Promise<void>((resolve) => holder!.listen(0, host, () => resolve()));
  return (holder.address() as net.AddressInfo).port;
}

function runHost(args: string[]): Promise<{ code: number | null; stderr: string }> {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-port-'));
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'main/headless/cli.ts'), '--data-dir', dataDir, ...args], {
    cwd: repoRoot,
    // Nothing to reach: the host must give up on its port before it would pair.
    env: { ...process.env, RUNNER_CONTROL_PLANE_URL: 'http://127.0.0.1:9', RUNNER_TRAY_QUIT_DRAIN_MS: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

describe('a port already in use', () => {
  it('the window port: one clear line and exit 78 (the unit does not restart on it)', async () => {
    const port = await holdPort('127.0.0.1');
    const ran = await runHost(['--port', String(port)]);
    expect(ran.code).toBe(EXIT_CONFIG);
    const said = ran.stderr.trim().split('\n');
    expect(said).toEqual([
      `runner-tray headless: the window port ${port} is already in use (another host or program holds it): stop that one or pick another with --port.`,
    ]);
  }, 60_000);

  it('the health port: the same, naming --health-port', async () => {
    const port = await holdPort('127.0.0.1');
    const ran = await runHost(['--port', '0', '--health-port', String(port), '--health-host', '127.0.0.1']);
    expect(ran.code).toBe(EXIT_CONFIG);
    expect(ran.stderr.trim()).toBe(
      `runner-tray headless: the health port ${port} is already in use (another host or program holds it): stop that one or pick another with --health-port.`,
    );
  }, 60_000);
});
