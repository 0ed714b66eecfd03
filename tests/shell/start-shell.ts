import { startShell, type Shell, type ShellOptions } from '../../main/electron/shell';
import { createFakeElectron, type FakeElectron } from './fake-electron';
import { createTestCore, type TestCore } from './test-core';

export interface StartedShell {
  fake: FakeElectron;
  testCore: TestCore;
  shell: Shell;
}

/** Starts the real shell on a fake Electron and a test core, as main.ts would. */
export async function startTestShell(
  overrides: Partial<Omit<ShellOptions, 'electron' | 'bootstrap'>> = {},
  prepare: (fake: FakeElectron, testCore: TestCore) => void = () => {},
): Promise<StartedShell> {
  const fake = createFakeElectron({ appPath: '/app' });
  const testCore = createTestCore();
  prepare(fake, testCore);
  const started = await startShell({
    electron: fake.api,
    bootstrap: testCore.bootstrap,
    env: { RUNNER_TRAY_DATA_DIR: '/tmp/rt-test-data' },
    argv: ['electron', '.'],
    platform: 'linux',
    ...overrides,
  });
  if (started.kind !== 'running') throw new Error('the shell did not start');
  return { fake, testCore, shell: started.shell };
}
