import { describe, expect, it } from 'vitest';
import { refusedDebugSwitch } from '../../main/electron/debug-switches';
import { startShell } from '../../main/electron/shell';
import { createFakeElectron } from './fake-electron';
import { createTestCore } from './test-core';

async function start(argv: string[], packaged: boolean, platform = 'linux') {
  const fake = createFakeElectron({ appPath: '/app' });
  fake.app.isPackaged = packaged;
  const testCore = createTestCore();
  let booted = false;
  const started = await startShell({
    electron: fake.api,
    bootstrap: (o) => {
      booted = true;
      return testCore.bootstrap(o);
    },
    env: { RUNNER_TRAY_DATA_DIR: '/tmp/rt-test-data' },
    argv,
    platform,
  });
  return { started, fake, booted };
}

describe('remote debugging switches', () => {
  it('a packaged build refuses to start with them, before the core or a window exists', async () => {
    for (const flag of ['--remote-debugging-port=9222', '--remote-debugging-pipe', '-remote-debugging-port=1', '--REMOTE-DEBUGGING-PORT=9']) {
      const { started, fake, booted } = await start(['/opt/Runner Tray/runner-tray', flag], true);
      expect(started, flag).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/does not start with --remote-debugging-(port|pipe)/) });
      expect(fake.app.exitCode).toBe(1);
      expect(booted).toBe(false);
    }
  });

  it('reads switches as Chromium does: not after --, not a value, /name on Windows only', () => {
    expect(refusedDebugSwitch(['app', '--', '--remote-debugging-port=1'], 'linux')).toBeNull();
    expect(refusedDebugSwitch(['app', '--name', 'remote-debugging-port'], 'linux')).toBeNull();
    expect(refusedDebugSwitch(['app', '/remote-debugging-port=1'], 'linux')).toBeNull();
    expect(refusedDebugSwitch(['app', '/Remote-Debugging-Port=1'], 'win32')).toBe('--remote-debugging-port');
    expect(refusedDebugSwitch(['app', '--inspect-brk'], 'darwin')).toBe('--inspect-brk');
    expect(refusedDebugSwitch(['--remote-debugging-port=1'], 'linux')).toBeNull(); // argv[0] is the program
  });

  it('a development build keeps them', async () => {
    const { started } = await start(['electron', '.', '--remote-debugging-port=9222'], false);
    expect(started.kind).toBe('running');
  });
});
