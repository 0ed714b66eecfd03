import type { RuntimeId } from '../../../../shared/runtimes';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../../base/ports';
import { scriptNode } from '../script-node';
import { cleanEnv } from './clean-env';
import type { CredentialBroker } from './credential-broker';
import { DEFAULT_EGRESS, planAllowlist, type EgressOptions } from './egress/egress-plan';
import { isolate, type IsolationTools } from './isolate';
import { claudeHome, codexHome, installationRoots, operatorCodexHome, type RuntimeHome } from './runtime-homes';
import type { IsolatedCommand, IsolationSpec } from './spec';
import { withTurnNetwork } from './sandboxed-network';

/**
 * From "run this runtime for this turn" to the command to spawn: the runtime's private
 * home, the clean environment, and the sandbox around it. Used by every runtime driver.
 */
export interface TurnIsolationOptions {
  /** The level this machine offers (probed once; see IsolationProbe). */
  tools(): Promise<IsolationTools>;
  /** Extra variable names or `PREFIX_*` patterns from the settings. */
  extraEnvAllow(): readonly string[];
  /** "Use my own claude/codex settings" (off by default). */
  ownConfig(): boolean;
  /** Folders never visible to a turn: the app's data folder (secrets, outbox, logs). */
  hidden: readonly string[];
  /** The sandboxed turn's network (`turnNetwork`, `turnEgressHosts`, the control planes' origins); default: an allowlist. */
  egress?(): EgressOptions;
  /**
   * Stands in for the model API keys of sandboxed turns (credential-broker.ts): the turn
   * holds a token worthless outside it. Absent: keys reach the turn as they are.
   */
  broker?: CredentialBroker;
  /** Ambient environment (default: this process's). */
  sourceEnv?: Readonly<Record<string, string | undefined>>;
}

export const ENVIRONMENT_ONLY: IsolationTools = { level: 'environment', tool: null, note: 'no sandbox configured' };

export interface TurnContext {
  runtime: RuntimeId;
  /** The executor's private root (the kept claude session transcripts live there). */
  workRoot: string;
  /** claude: the session this turn resumes (its transcript goes into the turn's new config dir). */
  resumeSessionId?: string | null;
  /** The per-turn directory (removed after the turn). */
  turnRoot: string;
  /** The host's explicit environment for runtimes (tests point CLIs at stubs). */
  requestEnv: Readonly<Record<string, string>>;
  options: TurnIsolationOptions;
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

export interface PreparedTurn {
  tools: IsolationTools;
  home: RuntimeHome;
  /** $HOME for the runtime. */
  homeDir: string;
  ownConfig: boolean;
}

/** Step one: the runtime's private configuration (before the invocation is built: it adds options). */
export async function prepareTurn(ctx: TurnContext): Promise<PreparedTurn> {
  const tools = await ctx.options.tools();
  const sandboxed = tools.level !== 'environment';
  const source = { ...(ctx.options.sourceEnv ?? process.env), ...ctx.requestEnv };
  const homeDir = source.HOME || os.homedir();
  const ownConfig = ctx.options.ownConfig();
  const home = ownConfig
    ? ownConfigHome(ctx.runtime, source, homeDir)
    : ctx.runtime === 'claude'
      ? await claudeHome({
          workRoot: ctx.workRoot,
          turnRoot: ctx.turnRoot,
          resumeSessionId: ctx.resumeSessionId ?? null,
          env: source,
          home: homeDir,
          sandboxed,
          broker: ctx.options.broker,
        })
      : await codexHome({ turnRoot: ctx.turnRoot, env: source, home: homeDir, sandboxed, broker: ctx.options.broker });
  return { tools, home, homeDir, ownConfig };
}

/** With "use my own settings" on, the operator's whole config folder is the runtime's, read-write. */
function ownConfigHome(runtime: RuntimeId, env: Readonly<Record<string, string | undefined>>, home: string): RuntimeHome {
  if (runtime === 'codex') {
    const dir = operatorCodexHome(env, home);
    return { env: { CODEX_HOME: dir }, signIn: [], writable: existsSync(dir) ? [dir] : [], args: [] };
  }
  const dir = real(env.CLAUDE_CONFIG_DIR || path.join(home, '.claude'));
  const legacy = path.join(home, '.claude.json');
  return {
    env: {},
    signIn: !env.CLAUDE_CONFIG_DIR && existsSync(legacy) ? [{ source: real(legacy), target: legacy, writable: true }] : [],
    writable: existsSync(dir) ? [dir] : [],
    args: [],
  };
}

/** Step two: the command, clean environment and sandbox of the turn. */
export async function isolateTurn(
  ctx: TurnContext,
  prepared: PreparedTurn,
  launch: {
    command: string;
    args: string[];
    cwd: string;
    binary: string;
    /** The invocation's own variables (the unit's MCP token for codex, ELECTRON_RUN_AS_NODE). */
    ownEnv: readonly Readonly<Record<string, string>>[];
    knownSecrets: readonly string[];
    /** Widens the spec for this launch (a task's git worktree: see git-worktree-access.ts). */
    widen?: (spec: IsolationSpec) => IsolationSpec;
    /** URLs this launch must reach beyond the runtime's and the control plane's (the unit's MCP server). */
    egressUrls?: readonly string[];
    /** Where the egress proxy says what it refused. */
    log?: Logger;
    /** The egress bridge takes the command on fd 3 (see IsolatedCommand.handoff). */
    handoff?: boolean;
  },
): Promise<IsolatedCommand> {
  const { tools, home, homeDir } = prepared;
  const sandboxed = tools.level !== 'environment';
  const sandboxLayer: Record<string, string> = {};
  if (sandboxed) {
    // The host's temp folder is not visible in a sandbox: the turn gets its own.
    const tmp = path.join(ctx.turnRoot, 'tmp');
    await mkdir(tmp, { recursive: true, mode: 0o700 });
    sandboxLayer.TMPDIR = real(tmp);
  }
  const env = cleanEnv({
    source: ctx.options.sourceEnv ?? process.env,
    extraAllow: [...ctx.options.extraEnvAllow(), ...(home.allowEnv ?? [])],
    knownSecrets: launch.knownSecrets,
    layers: [ctx.requestEnv],
    ownLayers: [home.env, ...launch.ownEnv, sandboxLayer],
  });
  env.HOME = homeDir;
  const cwd = real(launch.cwd);
  const turnRoot = real(ctx.turnRoot);
  const spec: IsolationSpec = {
    // Inside a sandbox only real paths exist (a symlink's own folder may be hidden).
    command: sandboxed && path.isAbsolute(launch.command) ? real(launch.command) : launch.command,
    args: launch.args,
    cwd,
    env,
    home: homeDir,
    writable: [...new Set([turnRoot, cwd, ...home.writable.map(real)])],
    readOnly: installationRoots(launch.binary, scriptNode()?.command ?? process.execPath),
    signIn: home.signIn,
    hidden: [...new Set([real(homeDir), ...ctx.options.hidden.map(real)])],
  };
  const widened = launch.widen ? launch.widen(spec) : spec;
  const egress = ctx.options.egress?.() ?? DEFAULT_EGRESS;
  if (!sandboxed || egress.network === 'shared' || tools.sharedNetworkOnly) return isolate(widened, tools);
  const allow = planAllowlist({ runtime: ctx.runtime, env, urls: launch.egressUrls ?? [], options: egress, turnRoot });
  const log = launch.log ?? SILENT;
  return withTurnNetwork(widened, tools, allow, turnRoot, log, launch.handoff === true);
}

const SILENT: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => SILENT };
