import { nativeCodex, scriptNode } from './script-node';

/**
 * How a runtime's process is launched: which program with which arguments, and with which
 * environment (see isolation/). Kept apart from the run itself (child-run) so both stay small.
 */

/**
 * Runs a .js CLI entry (codex's npm bin is one) with the script node (script-node.ts); where
 * there is none (the packaged app on a machine without `node`), codex's native binary.
 */
export function commandFor(binary: string, args: string[]): { command: string; args: string[]; env: Record<string, string> } {
  if (!/\.[cm]?js$/i.test(binary)) return { command: binary, args, env: {} };
  const node = scriptNode();
  if (node) return { command: node.command, args: [binary, ...args], env: node.env };
  const native = nativeCodex(binary);
  if (native) return { command: native, args, env: {} };
  throw new Error(
    `${binary} is a Node script, and this app does not run as Node: install Node.js (a \`node\` on PATH), or point RUNNER_TRAY_CODEX_BIN / RUNNER_TRAY_CLAUDE_BIN at a native executable`,
  );
}

// The environment a runtime gets is decided in isolation/clean-env.ts (an allowlist).
