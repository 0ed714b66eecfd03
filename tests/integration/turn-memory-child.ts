// Run by turn-memory.test.ts in a process of its own (`node --import tsx --expose-gc`): the
// real core with a stand-in claude, one warm-up turn, then a turn printing `MEMORY_TURN_KB`
// KB of transcript. Prints one JSON line: the heap (after a full GC) and RSS before that
// turn and after it, and the peak RSS while it ran (VmHWM, reset before it).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PairingState } from '../../shared/runner';
import { startHarness } from './core-harness';

const STREAMING = fileURLToPath(new URL('../fixtures/streaming-runtime.mjs', import.meta.url));
const kb = Number(process.env.MEMORY_TURN_KB ?? 10_240);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const status = () => readFileSync('/proc/self/status', 'utf8');
const kbOf = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status())?.[1]) / 1024;
function settled() {
  gc!();
  gc!();
  return { heapMb: process.memoryUsage().heapUsed / 1024 / 1024, rssMb: kbOf('VmRSS') };
}

const h = await startHarness({ core: { runtimeBinaries: { claude: STREAMING, codex: STREAMING } }, emulator: { config: { longPollMaxMs: 1000 } } });
// The harness keeps every event for its waits: let them go once seen, so the measure is the core's.
h.core.host.subscribe(() => (h.events.length = 0));
const pairing = await h.invoke<PairingState>('pairing:start');
if (pairing.phase !== 'waiting') throw new Error('not waiting');
h.emu.admin.approvePairing(pairing.userCode);
await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true);

async function turn(prompt: string): Promise<void> {
  const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt });
  await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === unit.id), 120_000);
  // Its transcript written out (the view waits for the file).
  await h.invoke('turns:transcript', { id: unit.id });
}

// A warm-up turn of the same kind: the code paths compiled, the pools made.
await turn('kb:512');
const before = settled();
writeFileSync('/proc/self/clear_refs', '5'); // resets VmHWM to the current RSS
await turn(`kb:${kb}`);
const peakRssMb = kbOf('VmHWM');
const after = settled();
process.stdout.write(`${JSON.stringify({ before, after, peakRssMb })}\n`);
await h.close();
process.exit(0);
