import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookBody } from '../../main/headless/fleet/webhook';
import { parsePromText, sampleValue } from '../helpers/prom-text';

// The headless host with --metrics and --webhook-url: it says where /metrics is (on
// loopback, no token), tells the webhook it restarted after a crash (its data folder still
// marked as running), and a clean stop clears the mark.

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const CANARY = 'fleet-hook-canary-5d2c';
let child: ChildProcess | null = null;
let hook: http.Server | null = null;
let dataDir = '';
afterEach(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = null;
  hook?.closeAllConnections();
  await new Promise((resolve) => (hook ? hook.close(resolve) : resolve(undefined)));
  hook = null;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the headless host with --metrics and --webhook-url', () => {
  it('serves /metrics on loopback, tells the webhook of the crash restart, and a clean stop clears the crash mark', async () => {
    const bodies: WebhookBody[] = [];
    let told: () => void = () => undefined;
    hook = http.createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString('utf8')));
      req.on('end', () => {
        bodies.push(JSON.parse(text) as WebhookBody);
        res.end('ok');
        told();
      });
    });
    await new Promise<void>((resolve) => hook!.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/services/${CANARY}`;
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-fleet-'));
    // What a host killed -9 leaves behind.
    writeFileSync(path.join(dataDir, 'headless-running'), '1\n');
    child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(repoRoot, 'main/headless/cli.ts'), '--data-dir', dataDir, '--port', '0', '--metrics', '--metrics-port', '0'],
      {
        cwd: repoRoot,
        env: { ...process.env, RUNNER_CONTROL_PLANE_URL: 'http://127.0.0.1:9', RUNNER_TRAY_QUIT_DRAIN_MS: '0', RUNNER_TRAY_WEBHOOK_URL: hookUrl },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const metricsUrl = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child!.stdout! }).on('line', (line) => {
        stdout += `${line}\n`;
        const m = /^Metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics) /.exec(line);
        if (m) resolve(m[1]!);
      });
      child!.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    expect(stdout).toContain('Webhook: notifications go to http://127.0.0.1:');
    const scraped = parsePromText(await (await fetch(metricsUrl)).text());
    expect(sampleValue(scraped.samples, 'runner_tray_process_resident_memory_bytes')).toBeGreaterThan(0);
    while (bodies.length === 0) await new Promise<void>((resolve) => (told = resolve));
    expect(bodies[0]!.runner_tray.kind).toBe('crash-restart');
    expect(existsSync(path.join(dataDir, 'headless-running'))).toBe(true);

    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    expect(existsSync(path.join(dataDir, 'headless-running'))).toBe(false);
    expect(`${stdout}${stderr}`).not.toContain(CANARY);
  }, 90_000);
});
