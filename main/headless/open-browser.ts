import { spawn } from 'node:child_process';

/**
 * Whether a browser could be opened for the person at this machine. Never over SSH, and
 * on Linux only with a display: a headless server prints the address instead.
 */
export function canOpenBrowser(platform: string, env: Record<string, string | undefined>): boolean {
  if (env.SSH_CONNECTION || env.SSH_TTY) return false;
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

export function openBrowser(url: string, platform: string): void {
  const [command, args] =
    platform === 'darwin' ? ['open', [url]] : platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}
