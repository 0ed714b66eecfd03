import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { COMMAND_NAMES, EVENT_CHANNEL, type HostEvent } from '../../shared/contract';
import { IpcDoor } from '../../main/electron/ipc';
import { MainWindow } from '../../main/electron/window';
import { createFakeElectron, mainFrame, subFrame, type FakeElectron } from './fake-electron';
import { createTestCore, type TestCore } from './test-core';

const RENDERER = 'app://renderer/index.html';

let fake: FakeElectron;
let testCore: TestCore;
let window: MainWindow;
let door: IpcDoor;

beforeEach(() => {
  fake = createFakeElectron();
  testCore = createTestCore();
  window = new MainWindow({ electron: fake.api, preloadPath: '/app/preload.cjs', platform: 'linux', devTools: false, log: testCore.core.log });
  door = new IpcDoor({ electron: fake.api, host: testCore.host, senders: window, log: testCore.core.log });
  door.start();
  window.show();
});

const ourWindow = () => fake.openWindows()[0]!;
const fromOurWindow = () => ({ webContentsId: ourWindow().webContents.id, frame: mainFrame(RENDERER) });

describe('the IPC door', () => {
  it('registers exactly the contract commands, once, and removes them on stop', () => {
    expect([...fake.ipcMain.handlers.keys()].sort()).toEqual([...COMMAND_NAMES].sort());
    door.start(); // idempotent: a second registration would throw in Electron (and the fake)
    door.stop();
    door.stop();
    expect(fake.ipcMain.handlers.size).toBe(0);
  });

  it('runs a command from our window through the host and answers with data', async () => {
    await expect(fake.ipcMain.invoke('runner:status', fromOurWindow())).resolves.toEqual({
      ok: true,
      value: { state: 'unpaired', reason: 'This machine is not paired yet.' },
    });
    await expect(fake.ipcMain.invoke('log:recent', fromOurWindow(), { limit: 5 })).resolves.toMatchObject({ ok: true });
  });

  it('rejects a malformed payload with the contract (through the host’s invoke)', async () => {
    for (const input of [{ limit: 'lots' }, { limit: 0 }, { limit: 5, extra: true }, 'text', 42]) {
      const answer = await fake.ipcMain.invoke('log:recent', fromOurWindow(), input);
      expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    }
    const noInputCommand = await fake.ipcMain.invoke('runner:status', fromOurWindow(), { unexpected: 1 });
    expect(noInputCommand).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it.each([
    ['another webContents', () => ({ webContentsId: 9999, frame: mainFrame(RENDERER) }), 'unknown webContents'],
    ['a subframe of our window', () => ({ webContentsId: ourWindow().webContents.id, frame: subFrame(RENDERER) }), 'not the main frame'],
    [
      'a foreign origin in our window',
      () => ({ webContentsId: ourWindow().webContents.id, frame: mainFrame('https://evil.example/x?token=abc') }),
      'foreign origin',
    ],
    ['a file:// page in our window', () => ({ webContentsId: ourWindow().webContents.id, frame: mainFrame('file:///tmp/x.html') }), 'foreign origin'],
    ['a frame that is gone', () => ({ webContentsId: ourWindow().webContents.id, frame: null }), 'sender frame is gone'],
  ])('refuses %s and logs it', async (_label, from, reason) => {
    const answer = await fake.ipcMain.invoke('runner:status', from());
    expect(answer).toEqual({ ok: false, error: { code: 'untrusted_sender', message: expect.any(String) } });
    const line = testCore.logged.find((e) => e.msg === 'ipc command refused: untrusted sender');
    expect(line?.level).toBe('warn');
    expect(line?.data).toMatchObject({ command: 'runner:status', reason });
    // Only the origin is logged, never a path or query that could carry a token.
    expect(JSON.stringify(line?.data)).not.toContain('token=abc');
  });

  it('stops trusting a window once it is closed', async () => {
    const closed = fromOurWindow();
    ourWindow().close();
    await expect(fake.ipcMain.invoke('runner:status', closed)).resolves.toMatchObject({ error: { code: 'untrusted_sender' } });
    window.show();
    await expect(fake.ipcMain.invoke('runner:status', fromOurWindow())).resolves.toMatchObject({ ok: true });
  });

  it('sends host event batches to our open windows on the event channel, and stops on stop', () => {
    const batch: HostEvent[] = [{ event: 'runner:status', payload: { state: 'idle', reason: 'Waiting for work.' } }];
    testCore.emit(batch);
    expect(ourWindow().webContents.sent).toEqual([{ channel: EVENT_CHANNEL, args: [batch] }]);
    const first = ourWindow();
    first.close();
    testCore.emit(batch); // no window, no delivery, no error
    expect(first.webContents.sent).toHaveLength(1);
    door.stop();
    window.show();
    testCore.emit(batch);
    expect(ourWindow().webContents.sent).toEqual([]);
  });
});

describe('layering inside the shell', () => {
  const shellDir = fileURLToPath(new URL('../../main/electron/', import.meta.url));

  it('touches ipcMain only in ipc.ts (electron-api.ts declares its type)', () => {
    const offenders = readdirSync(shellDir)
      .filter((name) => name.endsWith('.ts') && name !== 'ipc.ts' && name !== 'electron-api.ts')
      .filter((name) => /\bipcMain\b/.test(readFileSync(path.join(shellDir, name), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('uses ipcMain only through handle() and removeHandler(), never on()/once()', () => {
    const source = readFileSync(path.join(shellDir, 'ipc.ts'), 'utf8');
    expect(source).not.toMatch(/ipcMain\s*\.\s*(on|once|addListener|handleOnce)\b/);
    expect(source.match(/ipcMain\s*\.\s*handle\(/g)).toHaveLength(1);
  });

  it('imports electron only in main.ts', () => {
    const importers = readdirSync(shellDir)
      .filter((name) => name.endsWith('.ts'))
      .filter((name) => /from\s+['"]electron['"]|require\(\s*['"]electron['"]\s*\)/.test(readFileSync(path.join(shellDir, name), 'utf8')));
    expect(importers).toEqual(['main.ts']);
  });
});

describe('the window and the live figures', () => {
  it('holds the core’s watch while it is open (capacity every 5 s for its charts) and lets go when it closes', () => {
    const fresh = createFakeElectron();
    let watching = 0;
    const win = new MainWindow({
      electron: fresh.api,
      preloadPath: '/app/preload.cjs',
      platform: 'linux',
      devTools: false,
      log: testCore.core.log,
      watch: () => {
        watching++;
        return () => watching--;
      },
    });
    expect(watching).toBe(0);
    win.show();
    win.show(); // shown again: the same window, one watch
    expect(watching).toBe(1);
    win.close();
    expect(watching).toBe(0);
    win.show();
    expect(watching).toBe(1);
  });
});
