/**
 * How a runtime's process is launched: which program with which arguments, and with which
 * environment (see isolation/). Kept apart from the run itself (child-run) so both stay small.
 */

/** Runs a .js CLI entry (codex's bin is one) with this process's Node, also under Electron. */
export function commandFor(binary: string, args: string[]): { command: string; args: string[]; env: Record<string, string> } {
  if (!/\.[cm]?js$/i.test(binary)) return { command: binary, args, env: {} };
  return { command: process.execPath, args: [binary, ...args], env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {} };
}

// The environment a runtime gets is decided in isolation/clean-env.ts (an allowlist).
