/**
 * The parent-death watch: on Linux and macOS every runtime outside bubblewrap is started
 * through a tiny launcher (the script node, see script-node.ts, running the script below; bubblewrap
 * has its own watch, see isolation/bubblewrap.ts) that holds one end of a
 * pipe from the host on fd 3. When the host dies, however it dies (kill -9 included),
 * the pipe closes; the launcher then stops its whole process group (SIGTERM, then
 * SIGKILL after a grace period) so no agent keeps running without a host to report to.
 *
 * It is a separate layer: `withLifeline` wraps whatever command and arguments the
 * executor computed (a sandbox wrapper included), and the launcher passes stdin, stdout,
 * stderr, the exit code and the exit signal of the command straight through. Started
 * with no command (`spareLauncher`, see warm-launcher.ts) it waits for one as a JSON line
 * on fd 3, so its own Node start (~35 ms) can happen before the turn needs it; a spare
 * whose lifeline closes before it was given a command just exits.
 */
import { scriptNode, scriptNodeIsElectron, type ScriptNode } from './script-node';
export const LIFELINE_FD = 3;
/** How long the launcher waits after SIGTERM before it SIGKILLs its group. */
export const LIFELINE_GRACE_MS = 3_000;
const UNSET_VAR = 'RUNNER_TRAY_LIFELINE_UNSET';

const LAUNCHER = `'use strict';
const { spawn } = require('child_process');
const net = require('net');
const unset = process.env.${UNSET_VAR};
delete process.env.${UNSET_VAR};
if (unset) for (const name of unset.split(',')) delete process.env[name];
const [command, ...args] = process.argv.slice(1);
let stopping = false;
let started = false;
const stopGroup = () => {
  if (stopping) return;
  stopping = true;
  // A spare that was never handed a command has nothing to stop.
  if (!started) process.exit(0);
  try { process.kill(-process.pid, 'SIGTERM'); } catch {}
  setTimeout(() => {
    try { process.kill(-process.pid, 'SIGKILL'); } catch {}
    process.exit(137);
  }, ${LIFELINE_GRACE_MS});
};
// Signals for the group reach the command too: wait for it and pass its end on.
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => {});
const lifeline = new net.Socket({ fd: ${LIFELINE_FD}, readable: true, writable: true });
lifeline.on('end', stopGroup);
lifeline.on('close', stopGroup);
lifeline.on('error', stopGroup);
const start = (command, args, options) => {
  started = true;
  const child = spawn(command, args, { stdio: 'inherit', ...options });
  // The host learns the real start (or why there was none) on the lifeline, one JSON line.
  child.on('spawn', () => lifeline.write(JSON.stringify({ spawned: child.pid }) + '\\n'));
  child.on('error', (error) => {
    if (child.pid !== undefined) return;
    lifeline.removeAllListeners();
    lifeline.end(JSON.stringify({ spawnError: { code: error.code || 'ESPAWN', message: error.message } }) + '\\n', () => process.exit(127));
  });
  child.on('exit', (code, signal) => {
    if (stopping) return;
    lifeline.removeAllListeners();
    lifeline.destroy();
    if (signal) {
      for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.removeAllListeners(s);
      process.kill(process.pid, signal);
      setTimeout(() => process.exit(128), 1000);
    } else process.exit(code === null ? 1 : code);
  });
};
if (command !== undefined) {
  lifeline.on('data', () => {});
  start(command, args, {});
} else {
  // A spare started ahead of its turn: the command comes as one JSON line on the lifeline.
  let text = '';
  const onCommand = (chunk) => {
    text += chunk.toString('utf8');
    const nl = text.indexOf('\\n');
    if (nl < 0) return;
    lifeline.off('data', onCommand);
    lifeline.on('data', () => {});
    const c = JSON.parse(text.slice(0, nl));
    start(c.command, c.args, { cwd: c.cwd, env: c.env });
  };
  lifeline.on('data', onCommand);
}
`;

export interface LaunchCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Whether runtimes get the parent-death watch here (POSIX: it needs process groups). */
export function lifelineSupported(platform: NodeJS.Platform = process.platform): boolean {
  // The launcher is a Node script: without a script node (script-node.ts) there is none.
  return (platform === 'linux' || platform === 'darwin') && scriptNode() !== null;
}

function launcherNode(): ScriptNode {
  const node = scriptNode();
  if (!node) throw new Error('no Node runs the lifeline launcher here (lifelineSupported is false)');
  return node;
}

/** A launcher with no command yet (a warm spare): it takes one as a JSON line `{command, args, cwd, env}` on fd 3. */
export function spareLauncher(): { command: string; args: string[]; env: Record<string, string> } {
  const node = launcherNode();
  return { command: node.command, args: ['-e', LAUNCHER], env: node.env };
}

/** The same command, started through the launcher; the caller passes a pipe as fd 3. */
export function withLifeline(inner: LaunchCommand): LaunchCommand {
  const node = launcherNode();
  const addsRunAsNode = scriptNodeIsElectron() && inner.env.ELECTRON_RUN_AS_NODE === undefined;
  return {
    command: node.command,
    args: ['-e', LAUNCHER, '--', inner.command, ...inner.args],
    env: {
      ...inner.env,
      ...node.env,
      // The launcher needs Node mode; the command it starts must not inherit it unless it asked.
      ...(addsRunAsNode ? { [UNSET_VAR]: 'ELECTRON_RUN_AS_NODE' } : {}),
    },
  };
}
