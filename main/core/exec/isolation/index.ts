/**
 * What a turn can reach: the clean environment, each runtime's private configuration, and
 * the OS sandbox (bubblewrap on Linux, sandbox-exec on macOS) around the runtime process.
 *
 * Every runtime driver spawns through here. The exec driver (executor.ts) does, per turn:
 *
 *   const prepared = await prepareTurn({ runtime, workRoot, turnRoot, requestEnv, options });
 *   // build the runtime's argv, adding prepared.home.args (codex: --ignore-rules)
 *   const cmd = await isolateTurn(ctx, prepared, { command, args, cwd, binary, ownEnv, knownSecrets, egressUrls });
 *   const proxy = await cmd.egress?.start(); // the turn's own network: its way out (egress/)
 *   spawn(cmd.command, cmd.args, { cwd: cmd.cwd, env: cmd.env, detached: true });
 *   // … when the process has ended: await proxy?.close();
 *
 * A long-lived driver (a codex app-server serving several turns) does the same once per
 * process, with a `turnRoot` it owns for the process's lifetime (its private CODEX_HOME
 * lives there) and every folder its turns write to inside `writable` (give them as the
 * `cwd`, or build an IsolationSpec and call `isolate` directly). The level is
 * `options.tools()`; report it as `cmd.level`. With `options.broker`, a sandboxed turn's
 * model API keys stay on the host (credential-broker.ts, broker-lanes.ts): the grant lives
 * as long as `turnRoot` exists, and the driver revokes it when the turn ends.
 */
export { canAllow, cleanEnv, parseAllowList } from './clean-env';
export { bubblewrapArgs } from './bubblewrap';
export { seatbeltProfile } from './seatbelt';
export { isolate, probeIsolation, commandWorks, type IsolationTools } from './isolate';
export { IsolationProbe } from './probe-cache';
export { CredentialBroker } from './credential-broker';
export { prepareTurn, isolateTurn, ENVIRONMENT_ONLY, type TurnIsolationOptions, type PreparedTurn, type TurnContext } from './turn-isolation';
export type { IsolationSpec } from './spec';
