import { _electron as electron, expect, test, type ElectronApplication } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMAND_NAMES } from '../../shared/contract';
import { findElectronBinary, INSTALL_HINT } from './electron-binary';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const version = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
const binary = findElectronBinary();

test.skip(!binary.found, `${binary.found ? '' : binary.reason}; ${INSTALL_HINT}`);

let app: ElectronApplication;
let dataDir: string;

test.beforeAll(async () => {
  if (!binary.found) return;
  if (!existsSync(path.join(repoRoot, 'dist', 'electron', 'main.cjs'))) throw new Error('Build the app first: npm run build');
  // Its own data folder: its own single-instance lock, settings and logs, nothing shared
  // with an installed Runner Tray or another test run.
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'runner-tray-smoke-'));
  app = await electron.launch({
    executablePath: binary.path,
    // Chromium refuses to run as root with its sandbox (CI containers); only there.
    args: ['.', ...(process.platform === 'linux' && process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
    cwd: repoRoot,
    env: { ...process.env, RUNNER_TRAY_DATA_DIR: dataDir },
  });
  // Nothing a test does may open the operator's browser.
  await app.evaluate(({ shell }) => {
    shell.openExternal = async () => {};
  });
});

test.afterAll(async () => {
  await app?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

test('the window shows the first screen with live host data', async () => {
  const page = await app.firstWindow();
  expect(page.url()).toBe('app://renderer/index.html');
  await expect(page.getByTestId('app-mode')).toHaveText('Desktop app');
  await expect(page.getByTestId('app-version')).toHaveText(version);
  await expect(page.getByTestId('connection-state')).toHaveText('Connected');
  await expect(page.getByTestId('status-line')).not.toHaveText('Waiting for the host…');
});

test('window.runnerTray is exactly the contract, and Node is out of reach', async () => {
  const page = await app.firstWindow();
  const surface = await page.evaluate(() => {
    const w = window as unknown as Record<string, unknown>;
    return {
      api: Object.keys((w.runnerTray ?? {}) as object).sort(),
      require: typeof w.require,
      process: typeof w.process,
      module: typeof w.module,
      ipcRenderer: typeof w.ipcRenderer,
      electron: typeof w.electron,
    };
  });
  expect(surface).toEqual({
    api: [...COMMAND_NAMES, 'subscribe'].sort(),
    require: 'undefined',
    process: 'undefined',
    module: 'undefined',
    ipcRenderer: 'undefined',
    electron: 'undefined',
  });
  const status = await page.evaluate(() => (window as unknown as { runnerTray: { 'runner:status'(): Promise<unknown> } }).runnerTray['runner:status']());
  expect(status).toMatchObject({ ok: true, value: { state: expect.any(String) } });
});

test('the page cannot navigate away or open windows', async () => {
  const page = await app.firstWindow();
  await page.evaluate(() => {
    window.open('https://example.com/');
    window.location.href = 'https://example.com/';
  });
  await expect(page.getByTestId('app-mode')).toHaveText('Desktop app');
  expect(page.url()).toBe('app://renderer/index.html');
  expect(app.windows()).toHaveLength(1);
});
