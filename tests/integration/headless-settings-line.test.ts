import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

let emu: RunningEmulator | null = null;
let child: ChildProcess | null = null;
let dir = '';
afterEach(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  emu = child = null;
  dir = '';
});

it('the headless terminal says which settings file was set aside and what was reset, as the window banner does', async () => {
  emu = await startEmulator({});
  dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-settings-line-'));
  const dataDir = path.join(dir, 'data');
  mkdirSync(dataDir);
  const file = path.join(dataDir, 'settings.json');
  writeFileSync(file, '{"schemaVersion": 2, "settings": {"runnerName": "half-writ');
  child = spawn(process.execPath, ['--import', 'tsx', 'main/headless/cli.ts', '--port', '0'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      RUNNER_CONTROL_PLANE_URL: emu.url,
      RUNNER_TRAY_DATA_DIR: dataDir,
      RUNNER_TRAY_ALLOW_FILE_SECRET_STORE: '1',
      RUNNER_TRAY_CLAUDE_BIN: path.join(dir, 'no-claude-here'),
      RUNNER_TRAY_CODEX_BIN: path.join(dir, 'no-codex-here'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child!.stdout! }).on('line', (l) => {
      lines.push(l);
      if (l.startsWith('Settings: ')) resolve(l);
      // The settings lines come before the address: an address first means there was none.
      else if (/open http:\/\/127\.0\.0\.1/.test(l)) reject(new Error(`no settings line before the address:\n${lines.join('\n')}`));
    });
    child!.once('exit', (code) => reject(new Error(`the host exited (${code}) without a settings line:\n${lines.join('\n')}`)));
  });
  expect(line).toContain(`Settings file ${file} could not be read`);
  expect(line).toMatch(/every setting in it is back to its default, and a copy of the old file is at .*settings\.json\.[^ ]*\.bak\.$/);
});
