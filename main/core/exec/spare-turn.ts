import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Clock, Logger } from '../base/ports';
import type { ExecutionRequest } from './executor-port';
import { prepareTurn, type PreparedTurn, type TurnContext, type TurnIsolationOptions } from './isolation';
import { DEFAULT_EGRESS } from './isolation/egress/egress-plan';
import { CLAUDE_CREDENTIALS_FILE, CODEX_AUTH_FILE, operatorClaudeDir, operatorCodexHome } from './isolation/runtime-homes';
import { sandboxedTurn } from './child-turn';
import type { Invocation } from './runtime-args';
import { createTurnDir, type TurnDir } from './turn-files';
import { sandboxKey, startSandbox, type SpareSandbox } from './warm-sandbox';

/**
 * What a spare sandbox (warm-sandbox.ts) is made from: the shape of the turns it may serve,
 * and the spare itself, made as a turn of that shape is (its folder, its runtime's private
 * home, its sandboxed command), with nothing of a unit in it: no prompt, no MCP token.
 */
export type SpareTemplate = Pick<ExecutionRequest, 'runtime' | 'binary' | 'kind'> & { env: Record<string, string>; mcpUrl: string | null };

export function spareTemplate(request: ExecutionRequest): SpareTemplate {
  return { runtime: request.runtime, binary: request.binary, kind: request.kind, env: request.env ?? {}, mcpUrl: request.mcp?.serverUrl ?? null };
}

/**
 * The shape of the turns a spare may serve, or null where a turn gets none (no bubblewrap
 * with a network of its own, a resumed session). It holds every input of the runtime's
 * private home the spare prepared ahead (settings, the host's variables, and the operator's
 * sign-in files as they are now: a sign-in changed since makes another shape).
 */
export async function spareShape(request: ExecutionRequest, isolation: TurnIsolationOptions): Promise<string | null> {
  if (request.resumeSessionId) return null;
  const tools = await isolation.tools();
  const egress = isolation.egress?.() ?? DEFAULT_EGRESS;
  if (tools.level !== 'bubblewrap' || tools.sharedNetworkOnly || egress.network === 'shared') return null;
  const source = { ...(isolation.sourceEnv ?? process.env), ...request.env };
  const home = source.HOME || os.homedir();
  const files =
    request.runtime === 'claude'
      ? [path.join(operatorClaudeDir(source, home), CLAUDE_CREDENTIALS_FILE)]
      : [path.join(operatorCodexHome(source, home), CODEX_AUTH_FILE), path.join(operatorCodexHome(source, home), 'config.toml')];
  const stamps = await Promise.all(
    files.map((file) =>
      stat(file).then(
        (s) => `${s.ino}:${s.size}:${s.mtimeMs}`,
        () => 'none',
      ),
    ),
  );
  return JSON.stringify({
    template: spareTemplate(request),
    egress,
    ownConfig: isolation.ownConfig(),
    extraEnv: isolation.extraEnvAllow(),
    broker: isolation.broker !== undefined,
    stamps,
  });
}

export interface SpareTurnDeps {
  workRoot: string;
  clock: Clock;
  log: Logger;
  activeDirs: Set<string>;
  context(request: ExecutionRequest, turn: TurnDir): TurnContext;
  /** The invocation as the turn's is built, its files not written (the spare has no unit). */
  invocation(request: ExecutionRequest, turn: TurnDir, prepared: PreparedTurn): Promise<Invocation & { cwd: string }>;
  removeTurn(turn: TurnDir): Promise<void>;
}

/** A spare for the turns of `shape`, started as a turn of that shape would be; null where its turn would get no handoff sandbox. */
export async function makeSpare(deps: SpareTurnDeps, shape: string, template: SpareTemplate): Promise<Omit<SpareSandbox, 'used'> | null> {
  const turn = await createTurnDir(deps.workRoot, 'spare');
  deps.activeDirs.add(turn.root);
  try {
    const request: ExecutionRequest = {
      unitId: 'spare',
      runtime: template.runtime,
      binary: template.binary,
      kind: template.kind,
      prompt: '',
      mcp: template.mcpUrl === null ? null : { serverUrl: template.mcpUrl, token: '' },
      resumeSessionId: null,
      env: template.env,
      knownSecrets: [],
      timeoutMs: 0,
      signal: new AbortController().signal,
    };
    const context = deps.context(request, turn);
    const prepared = await prepareTurn(context);
    const invocation = await deps.invocation(request, turn, prepared);
    const isolated = await sandboxedTurn({ request, context, prepared, invocation }, deps.log);
    if (!isolated.handoff || !isolated.egress) {
      await deps.removeTurn(turn);
      return null;
    }
    const proxy = await isolated.egress.start();
    const child = startSandbox(isolated);
    child.on('error', (error) => deps.log.warn('a spare sandbox failed', { error: error.message }));
    return { shape, turn, prepared, key: sandboxKey(isolated), child, proxy, bornAt: deps.clock.now() };
  } catch (error) {
    await deps.removeTurn(turn);
    throw error;
  }
}
