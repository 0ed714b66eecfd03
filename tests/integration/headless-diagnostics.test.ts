// `runner-tray-headless diagnostics --out FILE`: the host's core over the same env and flags,
// the redacted zip written where asked, the process gone with exit code 0.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { strFromU8, unzipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

describe('runner-tray-headless diagnostics', () => {
  it('writes the zip to --out and exits 0', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-diag-cli-'));
    const out = path.join(dir, 'bundle.zip');
    const ran = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'main/headless/cli.ts', 'diagnostics', '--out', out, '--data-dir', path.join(dir, 'data')],
      {
        cwd: repoRoot,
        env: {
          ...process.env,
          RUNNER_CONTROL_PLANE_URL: 'http://127.0.0.1:9',
          RUNNER_TRAY_ALLOW_FILE_SECRET_STORE: '1',
          RUNNER_TRAY_CLAUDE_BIN: path.join(dir, 'no-claude'),
          RUNNER_TRAY_CODEX_BIN: path.join(dir, 'no-codex'),
        },
      },
    );
    expect(ran.stdout).toContain(`Diagnostics written to ${out}`);
    expect(statSync(out).mode & 0o077).toBe(0);
    const files = unzipSync(readFileSync(out));
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['README.txt', 'versions.json', 'settings.json', 'profiles.json']));
    expect(JSON.parse(strFromU8(files['versions.json']!))).toMatchObject({ app: { mode: 'headless' }, claude: null });
  }, 60_000);

  it('refuses --out without a file', async () => {
    const ran = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'main/headless/cli.ts', 'diagnostics', '--out'], { cwd: repoRoot }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(ran).toMatchObject({ code: 2, stderr: expect.stringContaining('--out needs a file name') });
  }, 60_000);
});
