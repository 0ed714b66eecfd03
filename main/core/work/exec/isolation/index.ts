/**
 * What a turn can reach: the clean environment, each runtime's private configuration, and
 * the OS sandbox (bubblewrap on Linux, sandbox-exec on macOS) around the runtime process.
 * Every runtime driver spawns through `isolateTurn` (or `isolate` with its own spec).
 */
export { canAllow, cleanEnv, parseAllowList, isNeverPassed } from './clean-env';
export { bubblewrapArgs } from './bubblewrap';
export { seatbeltProfile } from './seatbelt';
export { isolate, probeIsolation, commandWorks, systemLayout, type IsolationTools, type ProbeDeps } from './isolate';
export { IsolationProbe } from './probe-cache';
export { prepareTurn, isolateTurn, ENVIRONMENT_ONLY, type TurnIsolationOptions, type PreparedTurn } from './turn-isolation';
export type { IsolationSpec, IsolatedCommand, SignInFile } from './spec';
