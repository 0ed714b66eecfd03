import type { IsolationSpec } from './spec';

/**
 * The macOS Seatbelt (sandbox-exec) profile for one turn, with the intent of the Linux
 * sandbox. Seatbelt cannot start from an empty root, so it starts from "the system is
 * readable" and then denies what is private; in a profile the last matching rule wins:
 *
 * 1. deny everything; allow processes, signals within the sandbox, sysctl reads, the
 *    Mach/IPC services a CLI needs, and the network: with an egress allowlist (the
 *    default) outbound only to the egress proxy's 127.0.0.1 port and the allowed loopback
 *    origins (the emulator, a model stub), with `turnNetwork: shared` all of it;
 * 2. allow reading the file system, then deny reading $HOME, the app's data folder and the
 *    shared temp folders (/private/tmp, /private/var/folders: other processes' sockets);
 * 3. allow reading again exactly: the runtime's installation, the turn's folders, each
 *    sign-in file; allow writing only the turn's folders, writable sign-in files and
 *    /dev/null-like devices.
 *
 * What it does not stop, and Linux's does: Mach services are shared with the user's
 * session (the Keychain asks the user before giving another program an item it did not
 * create, and Runner Tray's items are its own), and other processes stay visible to `ps`.
 */
function quote(p: string): string {
  return `"${p.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

const subpaths = (paths: readonly string[]) => paths.map((p) => ` (subpath ${quote(p)})`).join('');
const literals = (paths: readonly string[]) => paths.map((p) => ` (literal ${quote(p)})`).join('');

function networkRules(spec: IsolationSpec): string[] {
  const network = spec.network;
  if (!network || !('proxyPort' in network)) return ['(allow network*)'];
  const ports = [...new Set([network.proxyPort, ...network.loopbackPorts])];
  return [
    // A CLI may still listen on loopback for its own children; outbound goes to the proxy (DNS is its job) and the allowed loopback origins only.
    '(allow network-bind network-inbound (local ip "localhost:*"))',
    `(allow network-outbound${ports.map((port) => ` (remote ip "localhost:${port}")`).join('')})`,
  ];
}

export function seatbeltProfile(spec: IsolationSpec): string {
  const lines = [
    '(version 1)',
    '(deny default)',
    '(allow process-exec process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow mach-lookup)',
    '(allow ipc-posix-shm ipc-posix-sem)',
    ...networkRules(spec),
    '(allow file-read*)',
    `(deny file-read*${subpaths([spec.home, ...spec.hidden, '/private/tmp', '/private/var/folders', '/Volumes'])})`,
    // Finding a file in an allowed folder needs the metadata of its parents.
    '(allow file-read-metadata)',
  ];
  const readable = [...spec.readOnly, ...spec.writable];
  if (readable.length > 0) lines.push(`(allow file-read*${subpaths(readable)})`);
  const signInRead = spec.signIn.flatMap((f) => [f.source, f.target]);
  if (signInRead.length > 0) lines.push(`(allow file-read*${literals([...new Set(signInRead)])})`);
  const writable = spec.writable;
  const signInWrite = spec.signIn.filter((f) => f.writable).flatMap((f) => [f.source, f.target]);
  lines.push(`(allow file-write*${subpaths(writable)}${literals([...new Set(signInWrite)])} (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/"))`);
  return `${lines.join('\n')}\n`;
}

/** sandbox-exec reads the profile from `-p`: argv shows it, and it holds paths only, never a secret. */
export function seatbeltArgs(spec: IsolationSpec): string[] {
  return ['-p', seatbeltProfile(spec), spec.command, ...spec.args];
}
