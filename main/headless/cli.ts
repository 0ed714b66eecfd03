import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { describeZodError } from '../../shared/result';
import { bootstrapCore } from '../core/bootstrap';
import { defaultDataDir } from '../core/paths';
import { canOpenBrowser, openBrowser } from './open-browser';
import { startHeadlessServer } from './server';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

const FlagsSchema = z.object({
  port: z.coerce.number().int().min(0, 'must be 0..65535').max(65535, 'must be 0..65535').default(0),
  open: z.boolean().default(false),
  'data-dir': z.string().min(1).optional(),
});

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { port: { type: 'string' }, open: { type: 'boolean' }, 'data-dir': { type: 'string' } },
    strict: true,
  });
  const flags = FlagsSchema.safeParse(values);
  if (!flags.success) {
    console.error(`runner-tray headless: --${describeZodError(flags.error)}`);
    return 2;
  }
  const pkg = z.object({ version: z.string(), productName: z.string() }).parse(JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')));
  const dataDir = flags.data['data-dir'] ?? process.env.RUNNER_TRAY_DATA_DIR ?? defaultDataDir(process.platform, process.env, os.homedir());

  const core = await bootstrapCore({ mode: 'headless', appName: pkg.productName, appVersion: pkg.version, dataDir });
  const server = await startHeadlessServer({
    host: core.host,
    staticDir: path.join(repoRoot, 'dist', 'renderer'),
    port: flags.data.port,
    log: core.log.child('headless'),
  });

  // The address carries the launch token: it goes to this terminal only, never to a log.
  process.stdout.write(`Runner Tray ${pkg.version} (headless) — open ${server.url}\n`);
  if (flags.data.open && canOpenBrowser(process.platform, process.env)) openBrowser(server.url, process.platform);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`Stopping (${signal})…\n`);
    await server.close();
    await core.shutdown();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  return -1;
}

main().then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    console.error(`runner-tray headless: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
