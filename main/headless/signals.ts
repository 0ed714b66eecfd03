type Signal = 'SIGINT' | 'SIGTERM' | 'SIGUSR2';
type SignalProcess = Pick<NodeJS.Process, 'on' | 'listeners' | 'removeListener'>;

/**
 * Makes `handler` the one listener of `signal`, taking it from what hooked it at import
 * (conf's when-exit re-sends every signal to the process after its clean-up, which would
 * read as a second Ctrl-C). Ours is added before the others go, so the signal never has
 * no listener: Node closes a signal's watch when its last listener is removed, and a
 * signal that arrived just before (queued for the old watch) would be dropped. A
 * `removeAllListeners` then `on` lost a service manager's SIGTERM sent the moment the host
 * printed its address: the host never stopped.
 */
export function takeSignal(proc: SignalProcess, signal: Signal, handler: (signal: Signal) => void): void {
  const ours = () => handler(signal);
  proc.on(signal, ours);
  for (const other of proc.listeners(signal)) if (other !== ours) proc.removeListener(signal, other as (...args: unknown[]) => void);
}

/**
 * SIGINT and SIGTERM from the first line of the host on. Until the host can stop the way
 * it means to (its quit policy, `handle`), a signal stops it at once with `early` (the
 * core's shutdown once there is a core), so no signal is lost or left to a library.
 */
export class HostSignals {
  private handler: ((signal: Signal) => void) | null = null;
  private early: (signal: Signal) => void;

  constructor(proc: SignalProcess, early: (signal: Signal) => void) {
    this.early = early;
    for (const signal of ['SIGINT', 'SIGTERM'] as const) takeSignal(proc, signal, (s) => (this.handler ?? this.early)(s));
  }

  /** What a signal does while the host is still starting. */
  whileStarting(early: (signal: Signal) => void): void {
    this.early = early;
  }

  /** From now on, what a signal does. */
  handle(handler: (signal: Signal) => void): void {
    this.handler = handler;
  }
}

/** The exit code of a process ended by `signal` (128 + its number), as a shell reports it. */
export function signalExitCode(signal: Signal): number {
  return signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 140;
}
