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
}
