import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestShell } from './start-shell';

describe('the window and its security posture', () => {
  it('opens one ~900×640 window with isolated, sandboxed, Node-free web preferences', async () => {
    const { fake } = await startTestShell();
    expect(fake.windows).toHaveLength(1);
    const { options } = fake.windows[0]!;
    expect(options).toMatchObject({ width: 900, height: 640, show: false, backgroundColor: '#f6f7f9' });
    expect(options.webPreferences).toEqual({
      preload: path.join('/app', 'dist', 'electron', 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      disableBlinkFeatures: 'Auxclick',
      navigateOnDragDrop: false,
      enableWebSQL: false,
      spellcheck: false,
      safeDialogs: true,
      devTools: true, // unpackaged (npm start); a packaged app has none
    });
  });

  it('has no DevTools when packaged', async () => {
    const { fake } = await startTestShell({}, (f) => {
      f.app.isPackaged = true;
    });
    expect(fake.windows[0]?.options.webPreferences.devTools).toBe(false);
  });

  it('loads the renderer from app://renderer and shows it once painted', async () => {
    const { fake } = await startTestShell();
    const win = fake.windows[0]!;
    expect(win.loadedUrl).toBe('app://renderer/index.html');
    expect(win.visible).toBe(false);
    win.becomeReady();
    expect(win.visible).toBe(true);
  });

  it('serves app:// with the CSP, from dist/renderer only', async () => {
    const { fake } = await startTestShell();
    expect(fake.protocol.privileged.map((s) => s.scheme)).toEqual(['app']);
    const response = await fake.protocol.fetch('app://renderer/..%2f..%2fpackage.json');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('denies navigation, redirects, new windows and webviews in every webContents', async () => {
    const { fake, testCore } = await startTestShell();
    const contents = fake.windows[0]!.webContents;
    expect(contents.navigate('https://evil.example/phish')).toBe(false);
    expect(contents.navigate('app://renderer/index.html')).toBe(false);
    expect(contents.redirect('https://evil.example/')).toBe(false);
    expect(contents.openWindow('https://evil.example/')).toBe('deny');
    expect(contents.attachWebview()).toBe(false);
    expect(testCore.logged.filter((e) => e.level === 'warn').map((e) => e.msg)).toEqual([
      'navigation blocked',
      'navigation blocked',
      'redirect blocked',
      'new window blocked',
      'webview blocked',
    ]);
  });

  it('denies every permission request and check', async () => {
    const { fake } = await startTestShell();
    for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read', 'openExternal', 'unknown']) {
      await expect(fake.session.requestPermission(permission)).resolves.toBe(false);
      expect(fake.session.checkPermission(permission)).toBe(false);
    }
  });

  it('installs the hardening before the first window exists', async () => {
    const { fake } = await startTestShell();
    const order = fake.calls.filter((c) => c === 'protocol.handle:app' || c === 'new BrowserWindow');
    expect(order).toEqual(['protocol.handle:app', 'new BrowserWindow']);
    expect(fake.session.requestHandler).not.toBeNull();
  });
});
