import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HostEvent } from '../../shared/contract';
import type { PairingState } from '../../shared/runner';
import type { TurnView } from '../../shared/turns';
import type { SettingsPatch } from '../../shared/settings';
import { bootstrapCore, type Core, type CoreOptions } from '../../main/core/bootstrap';
import { DETECTION_BOUND_MS } from '../../main/core/runner/capabilities';
import { startEmulator, type RunningEmulator, type StartEmulatorOptions } from '../../emulator';

/** The real core over a temp data dir, pointed at a real emulator on loopback. */
export interface Harness {
  emu: RunningEmulator;
  core: Core;
  dataDir: string;
  events: HostEvent[];
  invoke<T = unknown>(name: string, input?: unknown): Promise<T>;
  /** Resolves with the first event (already seen or future) that matches. */
  waitForEvent<E extends HostEvent['event']>(
    event: E,
    match: (payload: Extract<HostEvent, { event: E }>['payload']) => boolean,
    timeoutMs?: number,
  ): Promise<Extract<HostEvent, { event: E }>['payload']>;
  /** Restarts the core over the same data dir (a new process, as far as the core knows). */
  restart(overrides?: Partial<CoreOptions>): Promise<void>;
  close(): Promise<void>;
}

/**
 * How long a wait for an event holds by default. A first heartbeat follows the first runtime
 * detection (the installed claude and codex are asked for their version and sign-in, bounded
 * by DETECTION_BOUND_MS); on a loaded 2-core machine it has taken over 10 s. A wait ends as
 * soon as its event comes, so the bound only decides how long a real failure takes to show.
 */
const DEFAULT_WAIT_MS = DETECTION_BOUND_MS + 10_000;

export async function startHarness(
  options: { emulator?: StartEmulatorOptions; settings?: SettingsPatch; core?: Partial<CoreOptions>; emu?: RunningEmulator } = {},
): Promise<Harness> {
  const emu =
    options.emu ?? (await startEmulator({ ...options.emulator, config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000, ...options.emulator?.config } }));
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-it-'));
  const events: HostEvent[] = [];
  const waiters = new Set<() => void>();
  let core: Core;

  const boot = async (extra: Partial<CoreOptions> = {}) => {
    core = await bootstrapCore({
      mode: 'headless',
      appName: 'Runner Tray',
      appVersion: '0.0.0-test',
      dataDir,
      logFiles: true,
      overrides: { controlPlaneUrl: emu.url, secretBackend: 'file', heartbeatMs: 1000, runnerName: 'it-runner', ...options.settings },
      ...options.core,
      ...extra,
    });
    core.host.subscribe((batch) => {
      events.push(...batch);
      waiters.forEach((w) => w());
    });
  };
  await boot();

  const harness: Harness = {
    emu,
    get core() {
      return core;
    },
    dataDir,
    events,
    async invoke(name, input) {
      const result = await core.host.invoke(name, input);
      if (!result.ok) throw new Error(`${name} failed: ${result.error.code}: ${result.error.message}`);
      return result.value as never;
    },
    waitForEvent(event, match, timeoutMs = DEFAULT_WAIT_MS) {
      return new Promise((resolve, reject) => {
        const check = () => {
          for (const e of events) {
            if (e.event === event && match(e.payload as never)) {
              waiters.delete(check);
              clearTimeout(timer);
              resolve(e.payload as never);
              return;
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${event} event matched within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async restart(extra) {
      await core.shutdown(0);
      events.length = 0;
      await boot(extra);
    },
    async close() {
      await core.shutdown(0);
      if (!options.emu) await emu.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** Every file under a directory, with its text (for leak checks). */
export function filesUnder(dir: string): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push({ file: path.relative(dir, full), text: readFileSync(full, 'latin1') });
    }
  };
  walk(dir);
  return out;
}

/** Pairs the harness's runner by device code (approved on the emulator) and waits for its long-poll with claude found. */
export async function pairWithClaude(harness: Harness): Promise<void> {
  const pairing = await harness.invoke<PairingState>('pairing:start');
  if (pairing.phase !== 'waiting') throw new Error('not waiting');
  harness.emu.admin.approvePairing(pairing.userCode);
  await harness.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true);
}

/** The finished turn `id`, once the runner reports it. */
export function finished(harness: Harness, id: string): Promise<TurnView> {
  return harness.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === id), 15_000).then((u) => u.finished.find((t) => t.id === id)!);
}

/** Two heartbeats after now: long enough for any claim that was going to happen. */
export async function twoBeats(harness: Harness): Promise<void> {
  const since = harness.emu.admin.listEvents({ limit: 100_000 }).at(-1)?.seq ?? 0;
  let beats = 0;
  await harness.emu.admin.waitForEvent((e) => e.type === 'runner.heartbeat' && e.seq > since && ++beats >= 2, { timeoutMs: 10_000, since });
}

/**
 * Turn `id` once its result is delivered: in the update that finishes it when the result went
 * out first, else in a later update of the finished row (a loaded machine's usual order).
 */
export function delivered(harness: Harness, id: string, timeoutMs?: number): Promise<TurnView> {
  const row = (u: { finished: TurnView[]; updated?: TurnView[] | undefined }) =>
    [...u.finished, ...(u.updated ?? [])].find((t) => t.id === id && t.delivery?.state === 'delivered');
  return harness.waitForEvent('turns:update', (u) => row(u) !== undefined, timeoutMs).then((u) => row(u)!);
}
