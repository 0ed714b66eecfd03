// A runner host in its own process, for the kill -9 test: it runs the real core over a
// given data dir against a given emulator, and prints one line per turn whose process
// began (`spawned`) and that runs (`running`) so the test knows when to kill it.
import { bootstrapCore } from '../../main/core/bootstrap';
import { IsolationProbe } from '../../main/core/exec/isolation/probe-cache';

const [dataDir, controlPlaneUrl, fakeRuntime, flag] = process.argv.slice(2);
if (!dataDir || !controlPlaneUrl || !fakeRuntime) throw new Error('usage: crash-host <dataDir> <controlPlaneUrl> <fakeRuntime>');

const core = await bootstrapCore({
  mode: 'headless',
  appName: 'Runner Tray',
  appVersion: '0.0.0-test',
  dataDir,
  // The stand-in runtime reports its pids through a file named in FAKE_PIDS_FILE: the
  // variable is let through, and turns run with the environment-only level (no sandbox,
  // which would hide that file). The sandboxed kill path is tested in executor-sandbox.
  overrides: { controlPlaneUrl, secretBackend: 'file', heartbeatMs: 1000, runtimeEnvAllow: 'FAKE_PIDS_FILE' },
  isolationProbe: new IsolationProbe({ platform: process.platform, which: () => Promise.resolve(null), works: () => Promise.resolve(false) }),
  runtimeBinaries: { claude: fakeRuntime, codex: fakeRuntime },
  // `no-lifeline`: runtimes outlive this host, so only the restart path can stop them.
  ...(flag === 'no-lifeline' ? { parentDeathWatch: false } : {}),
});
core.host.subscribe((batch) => {
  for (const e of batch) {
    if (e.event !== 'turns:update') continue;
    for (const t of e.payload.active) {
      if (t.phase === 'running' && t.pid !== null) process.stdout.write(`running ${t.id} ${t.pid}\n`);
      // Its process began while the start call is still under way (the runtime waits for its prompt).
      else if (t.phase === 'starting' && t.pid !== null) process.stdout.write(`spawned ${t.id} ${t.pid}\n`);
    }
  }
});
process.stdout.write('ready\n');
