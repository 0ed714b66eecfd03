import { spawn } from 'node:child_process';

/**
 * Why no browser can be opened for the person at this machine, or null when one can.
 * Never over SSH, and on Linux only with a display: a headless server prints the address instead.
 */
export function browserUnavailableReason(platform: string, env: Record<string, string | undefined>): string | null {
  if (env.SSH_CONNECTION || env.SSH_TTY) return 'this is an SSH session, so there is no browser here to open';
  if (platform === 'darwin' || platform === 'win32') return null;
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return null;
  return 'there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)';
}

/** Opens `target` (a URL or a file path) in the default browser; failures are ignored. */
export function openBrowser(target: string, platform: string): void {
  const [command, args] = platform === 'darwin' ? ['open', [target]] : platform === 'win32' ? ['cmd', ['/c', 'start', '""', target]] : ['xdg-open', [target]];
  const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}
