import { SANDBOX_SOCKET } from './egress/egress-plan';
import type { IsolationSpec } from './spec';

/**
 * The bubblewrap (bwrap) command line for one turn. The sandbox starts from an empty root,
 * so whatever is not bound here does not exist for the turn:
 *
 * - the system read-only: /usr (and /bin, /lib… as the host has them: symlinks into /usr
 *   on merged-/usr systems, directories elsewhere), /etc, the resolver's folder under /run
 *   (/etc/resolv.conf often links there), /nix/store where it exists;
 * - a fresh /proc of a new pid namespace (no host process, so no /proc/<pid>/environ of
 *   the runner), with /proc/net masked (it would list abstract sockets), a minimal /dev;
 * - an empty /tmp (no other process's sockets: the session D-Bus, X11, ssh-agent) and an
 *   empty $HOME at its usual path;
 * - the runtime's installation read-only, the turn's folders read-write, each sign-in
 *   file alone, at the path the runtime looks for it;
 * - with an egress allowlist (the default) a network namespace of its own, whose only
 *   way out is the host's egress proxy, its unix socket bound at SANDBOX_SOCKET (see
 *   egress/): no host loopback port, no abstract unix socket (the session bus) is
 *   reachable; with `turnNetwork: shared`, the host's network; everything else
 *   unshared (ipc, uts, cgroup, user where possible); the turn dies with the runner
 *   (--die-with-parent) and cannot reach the runner's terminal (--new-session).
 *
 * --die-with-parent is the turn's parent-death watch here (no Node launcher around bwrap):
 * the kernel kills bwrap when the host that spawned it dies, kill -9 included, and with
 * bwrap the pid namespace's init, which takes every process of the turn with it (those
 * that left its session or process group too).
 */
export interface SystemLayout {
  /** Top-level entries: `{ path, kind, target? }`; `symlink` entries are recreated as symlinks. */
  entries: { path: string; kind: 'dir' | 'symlink'; target?: string }[];
}

export const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'] as const;
export const OPTIONAL_RO = ['/nix/store', '/run/systemd/resolve', '/run/resolvconf'] as const;

function depth(p: string): number {
  return p.split('/').filter(Boolean).length;
}

export function bubblewrapArgs(spec: IsolationSpec, layout: SystemLayout): string[] {
  const args: string[] = ['--unshare-all', ...(spec.network && 'socket' in spec.network ? [] : ['--share-net']), '--die-with-parent', '--new-session'];
  for (const entry of layout.entries) {
    if (entry.kind === 'symlink' && entry.target) args.push('--symlink', entry.target, entry.path);
    else args.push('--ro-bind', entry.path, entry.path);
  }
  for (const dir of OPTIONAL_RO) args.push('--ro-bind-try', dir, dir);
  args.push('--proc', '/proc', '--tmpfs', '/proc/net', '--dev', '/dev', '--tmpfs', '/tmp');
  // $HOME: an empty folder owned by the turn (it lives in the sandbox's own tmpfs root).
  args.push('--dir', spec.home);

  // Parents before children, so a folder bound inside another stays visible.
  const binds: { flag: string; source: string; target: string }[] = [
    ...spec.readOnly.map((p) => ({ flag: '--ro-bind', source: p, target: p })),
    ...spec.writable.map((p) => ({ flag: '--bind', source: p, target: p })),
    ...spec.signIn.map((f) => ({ flag: f.writable ? '--bind' : '--ro-bind', source: f.source, target: f.target })),
  ];
  binds.sort((a, b) => depth(a.target) - depth(b.target));
  for (const bind of binds) args.push(bind.flag, bind.source, bind.target);
  if (spec.network && 'socket' in spec.network) args.push('--bind', spec.network.socket, SANDBOX_SOCKET);
  args.push('--chdir', spec.cwd, '--', spec.command, ...spec.args);
  return args;
}
