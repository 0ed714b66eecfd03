import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../../../base/ports';
import { configBaseUrls, egressAllowlist, loopbackPorts, type EgressTarget } from './allowlist';
import { bridgeArgs, type BridgeHandoff } from './bridge-source';
import { startEgressProxy, type EgressListen, type EgressProxy } from './proxy';
import { scriptNode, scriptNodeIsElectron } from '../../script-node';

/**
 * How a sandboxed turn reaches the network (`turnNetwork`): `allowlist` (the default) is a
 * network namespace of its own with the egress proxy as its only way out; `shared` is the
 * host's network as it is (an operator's widening, for tools that need it).
 */
export type TurnNetwork = 'allowlist' | 'shared';

export interface EgressOptions {
  network: TurnNetwork;
  /** The operator's extra `host[:port]` entries (`turnEgressHosts`). */
  hosts: readonly string[];
}

export const DEFAULT_EGRESS: EgressOptions = { network: 'allowlist', hosts: [] };

/** Where the proxy's socket appears inside a bubblewrap sandbox. */
export const SANDBOX_SOCKET = '/run/rt-egress.sock';

export interface EgressPlanInput {
  runtime: 'claude' | 'codex';
  env: Readonly<Record<string, string | undefined>>;
  /** The turn's own URLs (its MCP server: the control plane's side of a turn). */
  urls: readonly string[];
  options: EgressOptions;
  turnRoot: string;
}

/** The turn's allowlist, with the base URLs of a generated codex config.toml. */
export function planAllowlist(input: EgressPlanInput): EgressTarget[] {
  const urls = [...input.urls];
  const codexHome = input.env.CODEX_HOME;
  if (input.runtime === 'codex' && codexHome) {
    try {
      urls.push(...configBaseUrls(readFileSync(path.join(codexHome, 'config.toml'), 'utf8')));
    } catch {
      // no config.toml: the default hosts only
    }
  }
  return egressAllowlist({ runtime: input.runtime, env: input.env, urls, hosts: input.options.hosts });
}

/** A unix socket's path must fit sun_path (108 bytes with its NUL). */
const SOCKET_PATH_MAX = 100;

/**
 * The proxy's host socket for a turn: in its own folder (the turn's sweep removes a
 * leftover), one per working folder (an app-server profile runs one server per task
 * worktree), the same for the same launch (the server pool keys on the argv). A path too
 * long for a socket moves to a 0700 folder of this user's under the temp folder.
 */
export function proxySocketPath(turnRoot: string, cwd: string): string {
  const name = `${createHash('sha256').update(cwd).digest('hex').slice(0, 12)}.sock`;
  const own = path.join(turnRoot, 'egress', name);
  if (Buffer.byteLength(own) <= SOCKET_PATH_MAX) return own;
  const digest = createHash('sha256').update(`${turnRoot}\0${cwd}`).digest('hex').slice(0, 16);
  return path.join(os.tmpdir(), `rt-egress-${os.userInfo().uid}`, `${digest}.sock`);
}

/** The real path of the script node (resolved once: it does not change while the host runs). */
const realNodes = new Map<string, string>();

export interface BridgedCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** The Node that runs the bridge: read-only in the sandbox. */
  readOnly: string;
  /** With a handoff: what goes to the bridge on fd 3 (the command is then not in `args`, its environment not in `env`). */
  handoff?: BridgeHandoff;
}

/**
 * `command args` run through the in-sandbox bridge (bubblewrap), with the script node
 * (script-node.ts); null where there is none (the turn then shares the host's network).
 */
export function bridgedCommand(
  allow: readonly EgressTarget[],
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  handoff = false,
): BridgedCommand | null {
  const script = scriptNode();
  if (!script) return null;
  let node = realNodes.get(script.command);
  if (node === undefined) {
    node = realpathSync(script.command);
    realNodes.set(script.command, node);
  }
  if (handoff) {
    // The bridge's own start needs only the script node's variables; the command gets exactly `env`.
    return {
      command: node,
      args: bridgeArgs({ socket: SANDBOX_SOCKET, forwards: [], dropEnv: [], handoff: true }, null, []),
      env: { ...script.env },
      readOnly: path.dirname(node),
      handoff: { command, args: [...args], env, forwards: loopbackPorts(allow) },
    };
  }
  const dropEnv = scriptNodeIsElectron() && env.ELECTRON_RUN_AS_NODE === undefined ? ['ELECTRON_RUN_AS_NODE'] : [];
  return {
    command: node,
    args: bridgeArgs({ socket: SANDBOX_SOCKET, forwards: loopbackPorts(allow), dropEnv }, command, args),
    env: { ...env, ...script.env },
    readOnly: path.dirname(node),
  };
}

/** What the driver starts right before it spawns the turn, and closes when its process has ended. */
export interface TurnEgress {
  start(): Promise<EgressProxy>;
  /** The turn will not start after all: ends a proxy that is already listening for it (none under bubblewrap). */
  discard(): Promise<void>;
  /** What the proxy lets through (a sandbox started ahead serves a turn only with the same). */
  allow?: readonly EgressTarget[];
}

export function turnEgress(allow: readonly EgressTarget[], listen: EgressListen, log: Logger): TurnEgress {
  return { start: () => startEgressProxy({ listen, allow, log }), discard: () => Promise.resolve(), allow };
}
