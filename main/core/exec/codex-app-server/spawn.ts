import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/**
 * The one place a `codex app-server` process is started. Everything the process gets is in
 * the spec, so an isolation layer (environment allowlist, a sandbox wrapper) can wrap this
 * function: it receives the command, its arguments, the environment and the working folder,
 * and may return a process running something else around them.
 */
export interface AppServerSpawnSpec {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Run before each start of a server for this spec (a new CODEX_HOME for every start); not part of its identity. */
  beforeStart?: () => Promise<void>;
  /** Run when a server for this spec has exited (its egress proxy closes); not part of its identity. */
  afterExit?: () => void;
  /** The codex binary the operator named or was detected, under any wrapper (for the seed's `codex app-server up (<bin>)`); not part of its identity. */
  binary?: string;
}

export type SpawnAppServer = (spec: AppServerSpawnSpec) => ChildProcessWithoutNullStreams;

export const spawnAppServer: SpawnAppServer = (spec) =>
  spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    // POSIX: the server leads its own process group, so its whole tree can be stopped.
    detached: process.platform !== 'win32',
    windowsHide: true,
  });
