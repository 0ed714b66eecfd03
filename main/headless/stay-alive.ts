/**
 * The core's timers never hold the process open (so a quit is never kept waiting by one).
 * Until the host's server listens, nothing else may: a restart that waits for a killed
 * host's still-dying runtime does so on those timers alone, and Node would run out of work
 * and exit 0 in the middle of the start. So the start holds the process open itself, and
 * a process that runs out of work without a requested stop says so and exits non-zero,
 * which a supervisor (`Restart=on-failure`) restarts.
 */
export interface StayAliveDeps {
  proc: Pick<NodeJS.Process, 'on' | 'exit'>;
  log(message: string): void;
  setInterval?: (fn: () => void, ms: number) => { unref?: () => void };
  clearInterval?: (handle: unknown) => void;
}

export const RAN_OUT_OF_WORK_EXIT_CODE = 75;

export interface StayAlive {
  /** The host has something of its own that holds it open (a listening server), or it is done. */
  release(): void;
  /** A stop was asked for: ending is expected from here on. */
  stopping(): void;
}

export function stayAlive(deps: StayAliveDeps): StayAlive {
  const set = deps.setInterval ?? ((fn: () => void, ms: number) => setInterval(fn, ms));
  const clear = deps.clearInterval ?? ((handle: unknown) => clearInterval(handle as NodeJS.Timeout));
  let hold: unknown = set(() => undefined, 60_000);
  let stopping = false;
  deps.proc.on('beforeExit', () => {
    if (stopping) return;
    deps.log('runner-tray headless: the host ran out of work without being asked to stop; exiting so that it is restarted.');
    deps.proc.exit(RAN_OUT_OF_WORK_EXIT_CODE);
  });
  return {
    release() {
      if (hold !== null) clear(hold);
      hold = null;
    },
    stopping() {
      stopping = true;
    },
  };
}
