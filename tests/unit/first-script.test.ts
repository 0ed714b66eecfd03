import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const outDir = mkdtempSync(path.join(tmpdir(), 'rt-first-script-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe("the window's first script", () => {
  it('holds no zod: the settings schemas load with the Settings view (a shared module the dashboard needs keeps off shared/settings.ts)', () => {
    // The real build (about a second), since what counts is what the bundler keeps, not what a file imports.
    const built = spawnSync(
      process.execPath,
      [
        path.join(repoRoot, 'node_modules/vite/bin/vite.js'),
        'build',
        '--config',
        'vite.renderer.config.ts',
        '--outDir',
        outDir,
        '--emptyOutDir',
        '--logLevel',
        'error',
      ],
      { cwd: repoRoot, encoding: 'utf8' },
    );
    expect(built.status, built.stderr).toBe(0);
    const first = readdirSync(path.join(outDir, 'assets')).filter((name) => /^first-.*\.js$/.test(name));
    expect(first).toHaveLength(1);
    const code = readFileSync(path.join(outDir, 'assets', first[0]!), 'utf8');
    expect(code).toContain('runner-tray'); // the first script itself (the window protocol)
    expect(code.includes('ZodError'), 'zod is in the first script: a module it imports pulls in shared/settings.ts').toBe(false);
  });
});
