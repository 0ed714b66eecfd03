import { existsSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';

/**
 * What runs the Node scripts around a turn (codex's `.js` launcher, the egress bridge, the
 * lifeline launcher). Under plain Node (the headless host) and in a development Electron it
 * is this process itself (Electron as Node through ELECTRON_RUN_AS_NODE). The packaged app
 * has the RunAsNode fuse off (electron-builder.yml), so that a task cannot use the app as a
 * general Node runtime; there it is a `node` on PATH when the machine has one, and otherwise
 * nothing: codex then runs its native binary directly (nativeCodex), and turns go without
 * the egress bridge (they share the host's network, as the probe says) and the lifeline.
 */
export interface ScriptNode {
  command: string;
  env: Record<string, string>;
}

interface ScriptNodeSetup {
  /** Running in Electron (default: this process's `process.versions.electron`). */
  electron: boolean;
  /** Electron may run as Node here: false in the packaged app (the fuse). */
  runAsNode: boolean;
  /** A `node` on PATH (absolute), or null. */
  systemNode: string | null;
}

let setup: ScriptNodeSetup = { electron: process.versions.electron !== undefined, runAsNode: true, systemNode: null };

/** Said once at start by the shell: the packaged app cannot run as Node. */
export function configureScriptNode(options: Partial<ScriptNodeSetup>): void {
  setup = { ...setup, ...options };
}

export function scriptNode(): ScriptNode | null {
  if (!setup.electron) return { command: process.execPath, env: {} };
  if (setup.runAsNode) return { command: process.execPath, env: { ELECTRON_RUN_AS_NODE: '1' } };
  return setup.systemNode ? { command: setup.systemNode, env: {} } : null;
}

/** Whether the script node is this Electron as Node (its children must not inherit the mode). */
export function scriptNodeIsElectron(): boolean {
  return setup.electron && setup.runAsNode;
}

/**
 * The native codex behind the npm launcher (`@openai/codex/bin/codex.js`): the platform
 * package's `vendor/<target>/bin/codex`, where npm put it beside the launcher's package (or
 * inside it). Null when `launcher` is not that launcher or no native binary is there.
 */
export function nativeCodex(launcher: string): string | null {
  let real: string;
  try {
    real = realpathSync(launcher);
  } catch {
    return null;
  }
  const pkg = path.dirname(path.dirname(real));
  if (path.basename(real) !== 'codex.js' || path.basename(pkg) !== 'codex') return null;
  const exe = process.platform === 'win32' ? 'codex.exe' : 'codex';
  const scope = path.dirname(pkg);
  const roots = [path.join(pkg, 'vendor'), path.join(pkg, 'node_modules', '@openai'), scope];
  for (const root of roots) {
    const vendors = root.endsWith('vendor') ? [root] : listDirs(root, /^codex-/).map((p) => path.join(p, 'vendor'));
    for (const vendor of vendors) {
      for (const target of listDirs(vendor, /./)) {
        const candidate = path.join(target, 'bin', exe);
        if (existsSync(candidate)) return candidate;
      }
    }
  }
  return null;
}

function listDirs(dir: string, name: RegExp): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && name.test(e.name))
      .map((e) => path.join(dir, e.name));
  } catch {
    return [];
  }
}
