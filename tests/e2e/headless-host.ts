import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface RunningHost {
  url: string;
  origin: string;
  token: string;
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * Starts the real headless host (`main/headless/cli.ts`, as `npm run headless` does,
 * over the already built renderer) with its own data directory, and waits for the
 * address it prints.
 */
export async function startHeadlessHost(extraArgs: string[] = [], env: Record<string, string> = {}): Promise<RunningHost> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-e2e-'));
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'main/headless/cli.ts'), '--port', '0', '--data-dir', dataDir, ...extraArgs],
    // Tests quit at once: running turns are canceled and reported instead of drained.
    { cwd: repoRoot, env: { ...process.env, RUNNER_TRAY_QUIT_DRAIN_MS: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const match = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(line);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`headless host exited with ${code} before printing its address:\n${stderr}`)));
  });
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token') ?? '',
    dataDir,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
