/**
 * How a runtime's process is launched: which program with which arguments, and with which
 * environment. Kept apart from the run itself (child-run) so both stay small.
 */

/** Runs a .js CLI entry (codex's bin is one) with this process's Node, also under Electron. */
export function commandFor(binary: string, args: string[]): { command: string; args: string[]; env: Record<string, string> } {
  if (!/\.[cm]?js$/i.test(binary)) return { command: binary, args, env: {} };
  return { command: process.execPath, args: [binary, ...args], env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {} };
}

/** The runner's environment minus any variable that holds one of the secrets. */
export function childEnv(knownSecrets: readonly string[], ...layers: Record<string, string>[]): NodeJS.ProcessEnv {
  const secrets = new Set(knownSecrets.filter((s) => s.length > 0));
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !secrets.has(value)) env[key] = value;
  for (const layer of layers) Object.assign(env, layer);
  return env;
}
