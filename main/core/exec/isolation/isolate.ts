import { execFile } from 'node:child_process';
import { lstatSync, readlinkSync } from 'node:fs';
import type { IsolationLevel } from '../../../../shared/isolation';
import { SYSTEM_DIRS, bubblewrapArgs, type SystemLayout } from './bubblewrap';
import { seatbeltArgs } from './seatbelt';
import type { IsolatedCommand, IsolationSpec } from './spec';

/**
 * The one entry every runtime driver goes through before it spawns: the turn's command,
 * wrapped in the strongest sandbox this machine has. The exec driver (one process per
 * turn) and an app-server driver (one long-lived process) both call `isolate` with the
 * same kind of spec and spawn what it returns.
 */
export interface IsolationTools {
  level: IsolationLevel;
  /** Path of bwrap / sandbox-exec for the sandboxed levels. */
  tool: string | null;
  /** Why a stronger level is not available (shown in the UI and the README's terms). */
  note: string | null;
  /** bubblewrap works, but cannot give a turn a network namespace of its own: turns share the host's network. */
  sharedNetworkOnly?: boolean;
}

export function isolate(spec: IsolationSpec, tools: IsolationTools, layout: SystemLayout = systemLayout()): IsolatedCommand {
  if (tools.level === 'bubblewrap' && tools.tool) {
    return { command: tools.tool, args: bubblewrapArgs(spec, layout), env: spec.env, cwd: spec.cwd, level: 'bubblewrap' };
  }
  if (tools.level === 'sandbox-exec' && tools.tool) {
    return { command: tools.tool, args: seatbeltArgs(spec), env: spec.env, cwd: spec.cwd, level: 'sandbox-exec' };
  }
  return { command: spec.command, args: spec.args, env: spec.env, cwd: spec.cwd, level: 'environment' };
}

/** How this host lays out its top-level system folders (merged /usr or not). */
export function systemLayout(): SystemLayout {
  const entries: SystemLayout['entries'] = [];
  for (const dir of SYSTEM_DIRS) {
    try {
      const stat = lstatSync(dir);
      if (stat.isSymbolicLink()) entries.push({ path: dir, kind: 'symlink', target: readlinkSync(dir) });
      else if (stat.isDirectory()) entries.push({ path: dir, kind: 'dir' });
    } catch {
      // not on this system
    }
  }
  return { entries };
}

export interface ProbeDeps {
  platform: NodeJS.Platform;
  which(name: string): Promise<string | null>;
  /** Runs a command to see that it works; true when it exits 0. */
  works(command: string, args: string[]): Promise<boolean>;
}

/**
 * Which level this machine offers. bubblewrap is used only when a trial sandbox really
 * starts (a kernel or container may forbid user namespaces); sandbox-exec ships with macOS.
 */
export async function probeIsolation(deps: ProbeDeps): Promise<IsolationTools> {
  if (deps.platform === 'linux') {
    const bwrap = await deps.which('bwrap');
    if (!bwrap) return { level: 'environment', tool: null, note: 'bubblewrap (bwrap) is not installed' };
    const layout = systemLayout();
    const trial = bubblewrapArgs(
      { command: '/bin/true', args: [], cwd: '/', env: {}, home: '/nonexistent-home', writable: [], readOnly: [], signIn: [], hidden: [] },
      layout,
    );
    if (!(await deps.works(bwrap, trial))) {
      return { level: 'environment', tool: null, note: 'bubblewrap is installed but cannot create a sandbox here (user namespaces disabled?)' };
    }
    // The default turn network is a namespace of its own (egress/): a kernel or container may allow user namespaces but not that.
    const ownNetwork = bubblewrapArgs(
      {
        command: '/bin/true',
        args: [],
        cwd: '/',
        env: {},
        home: '/nonexistent-home',
        writable: [],
        readOnly: [],
        signIn: [],
        hidden: [],
        network: { socket: '/dev/null' },
      },
      layout,
    );
    if (!(await deps.works(bwrap, ownNetwork))) {
      return {
        level: 'bubblewrap',
        tool: bwrap,
        note: 'bubblewrap cannot make a network namespace here: turns share the host network (no egress allowlist)',
        sharedNetworkOnly: true,
      };
    }
    return { level: 'bubblewrap', tool: bwrap, note: null };
  }
  if (deps.platform === 'darwin') {
    const tool = (await deps.which('sandbox-exec')) ?? '/usr/bin/sandbox-exec';
    if (await deps.works(tool, ['-p', '(version 1)(allow default)', '/usr/bin/true'])) return { level: 'sandbox-exec', tool, note: null };
    return { level: 'environment', tool: null, note: 'sandbox-exec does not work on this Mac' };
  }
  return { level: 'environment', tool: null, note: `no OS sandbox is used on ${deps.platform}` };
}

/** `works` for production: a bounded trial, run at start and on refresh. */
export function commandWorks(command: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 5_000, env: { PATH: '/usr/bin:/bin' }, windowsHide: true }, (error) => resolve(!error));
  });
}
