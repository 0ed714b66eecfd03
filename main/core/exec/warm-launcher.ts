import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import type { Logger } from '../base/ports';
import { spareLauncher } from './lifeline';
import { errorText } from '../../../shared/errors';

/**
 * One parent-death launcher (lifeline.ts) started ahead of its turn, so a turn outside
 * bubblewrap does not wait for the launcher's own Node start (~35 ms): the turn hands it
 * its command over the lifeline and a new spare is started behind it.
 *
 * A spare holds nothing of a turn (no command, no environment of one) and keeps the host
 * alive by nothing (its process and pipes are unreferenced): when the host ends, however
 * it ends, the spare's lifeline closes and it exits at once; `stop` kills it at quit.
 */
export class WarmLauncher {
  private spare: ChildProcess | null = null;
  private stopped = false;

  constructor(private readonly log: Logger) {}

  /** The spare, if a live one is ready (it is then the caller's: its pipes are referenced again). */
  take(): ChildProcess | null {
    const spare = this.spare;
    this.spare = null;
    if (!spare || spare.pid === undefined || spare.exitCode !== null || spare.signalCode !== null) return null;
    referenced(spare, true);
    return spare;
  }

  /** Starts a spare unless one is there (call it off the turn's critical path). */
  fill(): void {
    if (this.stopped || this.spare) return;
    const launcher = spareLauncher();
    let child: ChildProcess;
    try {
      child = spawn(launcher.command, launcher.args, {
        cwd: os.tmpdir(),
        env: launcher.env,
        stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
        // It leads its own process group, as a launcher started for a turn does.
        detached: true,
        windowsHide: true,
      });
    } catch (error) {
      this.log.warn('could not start a spare runtime launcher', { error: errorText(error) });
      return;
    }
    child.on('error', (error) => {
      if (this.spare === child) this.spare = null;
      this.log.warn('spare runtime launcher failed', { error: error.message });
    });
    child.once('exit', () => {
      if (this.spare === child) this.spare = null;
    });
    for (const stream of child.stdio) stream?.on('error', () => undefined);
    referenced(child, false);
    this.spare = child;
  }

  /** At quit: the spare is killed and none is started again. */
  stop(): void {
    this.stopped = true;
    const spare = this.spare;
    this.spare = null;
    if (spare?.pid === undefined) return;
    try {
      process.kill(-spare.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** A spare must not keep the host's event loop alive; a taken one must. */
export function referenced(child: ChildProcess, yes: boolean): void {
  if (yes) child.ref();
  else child.unref();
  for (const stream of child.stdio) {
    const handle = stream as unknown as { ref?: () => void; unref?: () => void } | null;
    if (yes) handle?.ref?.();
    else handle?.unref?.();
  }
}
