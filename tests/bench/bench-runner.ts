import type { UnitExecutor, ExecutionOutcome, ExecutionRequest } from '../../main/core/exec/executor-port';
import type { PairingState } from '../../shared/runner';
import type { RunningEmulator } from '../../emulator';
import { startHarness, type Harness } from '../integration/core-harness';

/**
 * A runtime that takes a fixed time and spawns nothing, so the benchmark measures the
 * runner (claiming, scheduling, reporting), not process start-up. `onExecute` marks the
 * moment the runner hands a unit to its runtime (its prompt: after the start was taken).
 */
export class TimedFakeExecutor implements UnitExecutor {
  durationMs = 0;
  onExecute: (unitId: string, at: number) => void = () => undefined;
  /** The moment the runtime handed back its outcome: the turn's end. */
  onEnd: (unitId: string, at: number) => void = () => undefined;

  async execute(request: ExecutionRequest): Promise<ExecutionOutcome> {
    // A real runtime has the unit (its prompt) only once the control plane took the start.
    if (request.startAccepted && !(await request.startAccepted))
      return { status: 'canceled', reason: 'canceled', summary: '', exitCode: null, outputTail: '', durationMs: 0, outputBytes: 0 };
    this.onExecute(request.unitId, performance.now());
    const started = performance.now();
    if (this.durationMs > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.durationMs);
        request.signal.addEventListener('abort', () => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    this.onEnd(request.unitId, performance.now());
    return {
      status: request.signal.aborted ? 'canceled' : 'succeeded',
      reason: request.signal.aborted ? 'canceled' : 'exit',
      summary: 'ok',
      exitCode: 0,
      outputTail: '',
      durationMs: performance.now() - started,
      outputBytes: 2,
    };
  }

  async sweepStale(): Promise<number> {
    return 0;
  }
}

export interface BenchRunner {
  harness: Harness;
  executor: TimedFakeExecutor;
  runnerId: string;
  /** Control-plane requests this runner made, by path. */
  requests: Map<string, number>;
  requestCount(): number;
  /** When each claim request left (performance.now()). */
  claimTimes: number[];
}

/** A real core on the shared emulator, paired, with a request counter on its fetch. */
export async function startBenchRunner(
  emu: RunningEmulator,
  name: string,
  strategy: 'adaptive' | 'seed',
  settings: { heartbeatMs: number; interactiveClaimMs: number; maxSessions: number; machineMaxTurns?: number },
): Promise<BenchRunner> {
  const executor = new TimedFakeExecutor();
  const requests = new Map<string, number>();
  const claimTimes: number[] = [];
  const countingFetch = (input: string, init: RequestInit) => {
    const path = new URL(input).pathname.replace(/\/[0-9a-f-]{36}\//, '/:id/');
    if (path.endsWith('/claim')) claimTimes.push(performance.now());
    requests.set(path, (requests.get(path) ?? 0) + 1);
    return fetch(input, init);
  };
  const harness = await startHarness({
    emu,
    settings: { ...settings, runnerName: name, modelAccountAlias: `bench-${name}` },
    core: { executor, workStrategy: strategy, fetch: countingFetch, runtimeBinaries: { claude: process.execPath, codex: process.execPath }, logFiles: false },
  });
  const pairing = await harness.invoke<PairingState>('pairing:start');
  if (pairing.phase !== 'waiting') throw new Error(`${name}: pairing did not start`);
  emu.admin.approvePairing(pairing.userCode);
  const paired = await harness.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null && s.runtimes !== null, 20_000);
  return {
    harness,
    executor,
    runnerId: paired.identity!.runnerId,
    requests,
    requestCount: () => [...requests.values()].reduce((a, b) => a + b, 0),
    claimTimes,
  };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? NaN;
}
