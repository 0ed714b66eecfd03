/**
 * Exit codes a supervisor acts on. 2: a bad flag or variable. 78 (EX_CONFIG): the host
 * cannot start as configured (its port is taken). A systemd unit lists both in
 * `RestartPreventExitStatus`: restarting in a loop cannot fix either.
 */
export const EXIT_USAGE = 2;
export const EXIT_CONFIG = 78;

/** The one line a port already held gets, for `--port` or `--health-port`. */
export function portInUseLine(what: string, port: number, flag: string): string {
  return `runner-tray headless: ${what} port ${port} is already in use (another host or program holds it): stop that one or pick another with ${flag}.`;
}

export function isAddressInUse(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'EADDRINUSE';
}
