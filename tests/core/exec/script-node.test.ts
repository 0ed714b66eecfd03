import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { commandFor } from '../../../main/core/exec/child-launch';
import { bridgedCommand } from '../../../main/core/exec/isolation/egress/egress-plan';
import { lifelineSupported, spareLauncher, withLifeline } from '../../../main/core/exec/lifeline';
import { configureScriptNode, nativeCodex } from '../../../main/core/exec/script-node';

/**
 * The packaged app has the RunAsNode fuse off, so nothing around a turn may rely on the app
 * running as Node: codex's .js launcher, the egress bridge and the lifeline take the
 * machine's `node`, or (codex) its native binary, or are not used.
 */
const CODEX_LAUNCHER = fileURLToPath(new URL('../../../node_modules/@openai/codex/bin/codex.js', import.meta.url));
const PLAIN = { electron: false, runAsNode: true, systemNode: null };
afterEach(() => configureScriptNode(PLAIN));

describe('the script node', () => {
  it("plain Node (the headless host): this process's Node, with nothing added", () => {
    configureScriptNode(PLAIN);
    expect(commandFor(CODEX_LAUNCHER, ['exec'])).toEqual({ command: process.execPath, args: [CODEX_LAUNCHER, 'exec'], env: {} });
    expect(commandFor('/usr/bin/claude', ['-p'])).toEqual({ command: '/usr/bin/claude', args: ['-p'], env: {} });
  });

  it('a development Electron: itself as Node; the command the lifeline starts does not inherit the mode', () => {
    configureScriptNode({ electron: true, runAsNode: true, systemNode: null });
    expect(commandFor(CODEX_LAUNCHER, ['exec']).env).toEqual({ ELECTRON_RUN_AS_NODE: '1' });
    const wrapped = withLifeline({ command: '/usr/bin/claude', args: [], env: {} });
    expect(wrapped.command).toBe(process.execPath);
    expect(wrapped.env.ELECTRON_RUN_AS_NODE).toBe('1');
    expect(Object.values(wrapped.env)).toContain('ELECTRON_RUN_AS_NODE'); // named to be unset for the command
  });

  it('the packaged app with a node on PATH: that node, and never ELECTRON_RUN_AS_NODE (the fuse would ignore it)', () => {
    configureScriptNode({ electron: true, runAsNode: false, systemNode: '/opt/node/bin/node' });
    expect(commandFor(CODEX_LAUNCHER, ['app-server'])).toEqual({ command: '/opt/node/bin/node', args: [CODEX_LAUNCHER, 'app-server'], env: {} });
    expect(spareLauncher()).toMatchObject({ command: '/opt/node/bin/node', env: {} });
    const wrapped = withLifeline({ command: '/usr/bin/claude', args: ['-p'], env: { A: '1' } });
    expect(wrapped).toMatchObject({ command: '/opt/node/bin/node', env: { A: '1' } });
    expect(JSON.stringify(wrapped.env)).not.toContain('ELECTRON_RUN_AS_NODE');
    expect(lifelineSupported('linux')).toBe(true);
  });

  it('the packaged app without node: the real codex runs as its native binary; no bridge, no lifeline; another .js CLI is refused clearly', () => {
    configureScriptNode({ electron: true, runAsNode: false, systemNode: null });
    const native = nativeCodex(CODEX_LAUNCHER);
    expect(native).toMatch(/@openai\/codex-[^/]+\/vendor\/[^/]+\/bin\/codex(\.exe)?$/);
    const command = commandFor(CODEX_LAUNCHER, ['--version']);
    expect(command).toEqual({ command: native, args: ['--version'], env: {} });
    const version = spawnSync(command.command, command.args, { encoding: 'utf8' });
    expect(version.stdout).toMatch(/^codex-cli \d+\.\d+\.\d+/);
    expect(lifelineSupported('linux')).toBe(false);
    expect(bridgedCommand([], '/usr/bin/claude', [], {})).toBeNull();
    expect(() => commandFor('/home/me/tools/cli.mjs', [])).toThrow(/is a Node script, and this app does not run as Node: install Node\.js/);
    expect(nativeCodex('/home/me/tools/cli.mjs')).toBeNull();
  });
});
