import type { TurnEgress } from './egress/egress-plan';
import type { BridgeHandoff } from './egress/bridge-source';
import type { IsolationLevel } from '../../../../shared/isolation';

/**
 * What a turn's process may reach, said once for every way of enforcing it (bubblewrap,
 * sandbox-exec, or the environment alone). Every path is absolute and real (symlinks
 * resolved): the sandboxes check real paths.
 */
export interface IsolationSpec {
  command: string;
  args: string[];
  cwd: string;
  /** The child's whole environment (already clean: see clean-env.ts). */
  env: Record<string, string>;
  /** $HOME as the child sees it: under a sandbox an empty, private directory at the same path. */
  home: string;
  /** Folders the turn owns (its directory, the runtime's private state): read-write. */
  writable: string[];
  /** The runtime's installation (and the Node that runs a .js CLI): read-only. */
  readOnly: string[];
  /** The sign-in files the runtime needs, each exactly (never its folder). */
  signIn: SignInFile[];
  /** Folders a profile that starts from "everything readable" must deny ($HOME, the app's data). */
  hidden: string[];
  /**
   * The turn's network when it is an allowlist (absent: the host's network, shared).
   * bubblewrap: a network namespace of its own, `socket` (the egress proxy's) bound in at
   * SANDBOX_SOCKET. sandbox-exec: outbound only to the proxy's port and the allowed
   * loopback ports.
   */
  network?: { socket: string } | { proxyPort: number; loopbackPorts: readonly number[] };
}

export interface SignInFile {
  /** The operator's file. */
  source: string;
  /** Where the runtime looks for it (the same path, or inside a private config folder). */
  target: string;
  /** Runtimes refresh their tokens in place. */
  writable: boolean;
}

export interface IsolatedCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  level: IsolationLevel;
  /** With an egress allowlist: the proxy to start right before the spawn and close when the process ends. */
  egress?: TurnEgress;
  /** The egress bridge takes its command on fd 3 (bridge-source.ts): `command args` start the sandbox only. */
  handoff?: BridgeHandoff;
}
