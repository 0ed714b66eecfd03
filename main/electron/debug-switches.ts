/**
 * Command-line switches that would let any local program drive the app (and read the
 * runner secret through it): Chromium's remote debugging over a port or a pipe. The
 * packaged app's fuses already disable Node's --inspect; these are Chromium's, which no
 * fuse covers, so a packaged build refuses to start with them. Development builds keep
 * them (debugging is what they are for).
 *
 * Chromium reads a switch as `--name`, `-name` (and `/name` on Windows), with or without
 * `=value`, case-insensitively on Windows, and stops at a bare `--`.
 */
const REFUSED = ['remote-debugging-port', 'remote-debugging-pipe', 'remote-debugging-address', 'inspect', 'inspect-brk', 'inspect-port'];

export function refusedDebugSwitch(argv: readonly string[], platform: string): string | null {
  for (const arg of argv.slice(1)) {
    if (arg === '--') break;
    const m = (platform === 'win32' ? /^(?:--|-|\/)([^=]+)/ : /^(?:--|-)([^=]+)/).exec(arg);
    if (!m) continue;
    const name = (m[1] as string).toLowerCase();
    if (REFUSED.includes(name)) return `--${name}`;
  }
  return null;
}
