import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

// electron-store needs Electron; a stand-in records what the shell asks of it.
const seen: { options: Record<string, unknown> | null; path: string } = { options: null, path: '' };
vi.mock('electron-store', () => ({
  default: class {
    readonly path = seen.path;
    store: Record<string, unknown> = {};
    constructor(options: Record<string, unknown>) {
      seen.options = options;
    }
  },
}));

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the desktop settings file', () => {
  it.skipIf(process.platform === 'win32')('is written 0600, and a 0644 file from an older build is tightened when opened', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rt-esettings-'));
    dirs.push(dir);
    seen.path = path.join(dir, 'settings.json');
    writeFileSync(seen.path, '{}\n', { mode: 0o644 });
    const { electronSettingsBackend } = await import('../../main/electron/electron-settings');
    electronSettingsBackend();
    expect(seen.options).toMatchObject({ name: 'settings', configFileMode: 0o600 });
    expect(statSync(seen.path).mode & 0o777).toBe(0o600);
  });
});
