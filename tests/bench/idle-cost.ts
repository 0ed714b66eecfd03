// How much an idle, paired runner costs with the default cadence: control-plane requests
// and process spawns over a window (default 10 minutes). Not part of `npm run bench`
// (it takes the whole window); run with `npx tsx tests/bench/idle-cost.ts [minutes]`.
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../emulator';
import { createCommandRunner } from '../../main/core/exec/process-runner';
import type { PairingState } from '../../shared/runner';
import { startHarness } from '../integration/core-harness';

const minutes = Number(process.argv[2] ?? 10);
const bin = (name: string) => fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));

const emu = await startEmulator({ config: { pairingIntervalSec: 1 } });
const requests = new Map<string, number>();
let spawns = 0;
const real = createCommandRunner();
const h = await startHarness({
  emu,
  // Default cadence: the harness's 1 s heartbeat is put back to the 30 s default.
  settings: { heartbeatMs: 30_000 },
  emulator: { config: { nextHeartbeatMs: 30_000 } },
  core: {
    runtimeBinaries: { claude: bin('claude'), codex: bin('codex') },
    commandRunner: {
      run: (command, args, options) => {
        spawns++;
        return real.run(command, args, options);
      },
      which: (name) => real.which(name),
    },
    fetch: (input, init) => {
      const path = new URL(input).pathname;
      requests.set(path, (requests.get(path) ?? 0) + 1);
      return fetch(input, init);
    },
  },
});
const pairing = await h.invoke<PairingState>('pairing:start');
if (pairing.phase !== 'waiting') throw new Error('pairing did not start');
emu.admin.approvePairing(pairing.userCode);
await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null && s.runtimes !== null, 30_000);
requests.clear();
const spawnsAtStart = spawns;
console.log(`idle-cost: paired; measuring ${minutes} idle minutes with the default cadence…`);
await new Promise((r) => setTimeout(r, minutes * 60_000));
const total = [...requests.values()].reduce((a, b) => a + b, 0);
console.log(
  JSON.stringify(
    { minutes, requests: total, byPath: Object.fromEntries(requests), processSpawns: spawns - spawnsAtStart, spawnsDuringStart: spawnsAtStart },
    null,
    2,
  ),
);
await h.close();
await emu.close();
process.exit(0);
