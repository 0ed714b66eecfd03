// A runner host in its own process, for the kill -9 test: it runs the real core over a
// given data dir against a given emulator, and prints one line per turn that starts
// running so the test knows when to kill it.
import { bootstrapCore } from '../../main/core/bootstrap';

const [dataDir, controlPlaneUrl, fakeRuntime, flag] = process.argv.slice(2);
if (!dataDir || !controlPlaneUrl || !fakeRuntime) throw new Error('usage: crash-host <dataDir> <controlPlaneUrl> <fakeRuntime>');

const core = await bootstrapCore({
  mode: 'headless',
  appName: 'Runner Tray',
  appVersion: '0.0.0-test',
  dataDir,
  overrides: { controlPlaneUrl, secretBackend: 'file', heartbeatMs: 1000 },
  runtimeBinaries: { claude: fakeRuntime, codex: fakeRuntime },
  // `no-lifeline`: runtimes outlive this host, so only the restart path can stop them.
  ...(flag === 'no-lifeline' ? { parentDeathWatch: false } : {}),
});
core.host.subscribe((batch) => {
  for (const e of batch) {
    if (e.event !== 'turns:update') continue;
    for (const t of e.payload.active) if (t.phase === 'running' && t.pid !== null) process.stdout.write(`running ${t.id} ${t.pid}\n`);
  }
});
process.stdout.write('ready\n');
