/**
 * The headless host's last line of defence. An error nothing else caught must not leave
 * the process half alive, nor running agents behind it: log it, stop the running turns
 * through the core's own stop path (which ends their process trees and reports them),
 * and exit non-zero so a supervisor restarts the host.
 */
export interface LastResortDeps {
  /** process, or a stand-in in tests. */
  proc: Pick<NodeJS.Process, 'on' | 'exit'>;
  log(message: string): void;
  /** Stops what runs (cancel and report); the exit waits for it at most `graceMs`. */
  stop(): Promise<unknown>;
  graceMs?: number;
  /** setTimeout, or a fake in tests. */
  setTimer?: (fn: () => void, ms: number) => unknown;
}

export const LAST_RESORT_EXIT_CODE = 70;

export function installLastResort(deps: LastResortDeps): void {
  let failing = false;
  const setTimer = deps.setTimer ?? ((fn: () => void, ms: number) => setTimeout(fn, ms).unref());
  const fail = (kind: string, error: unknown) => {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    deps.log(`runner-tray headless: ${kind}: ${text}`);
    if (failing) return;
    failing = true;
    const exit = () => deps.proc.exit(LAST_RESORT_EXIT_CODE);
    setTimer(exit, deps.graceMs ?? 10_000);
    deps.stop().then(exit, (stopError: unknown) => {
      deps.log(`runner-tray headless: stopping the running turns failed: ${stopError instanceof Error ? stopError.message : String(stopError)}`);
      exit();
    });
  };
  deps.proc.on('uncaughtException', (error) => fail('unexpected error', error));
  deps.proc.on('unhandledRejection', (reason) => fail('unhandled rejection', reason));
}
