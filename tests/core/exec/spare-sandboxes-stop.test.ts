import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SpareSandboxes, type SpareSandbox } from '../../../main/core/exec/warm-sandbox';
import type { PreparedTurn } from '../../../main/core/exec/isolation';
import type { EgressProxy } from '../../../main/core/exec/isolation/egress/proxy';
import type { TurnDir } from '../../../main/core/exec/turn-files';
import { FakeClock } from '../../helpers/fake-clock';
import { testLogging } from '../../helpers/test-logger';

// A quit that comes while a spare sandbox is still starting: the spare is ended and its
// folder removed before `stop` resolves, so nothing of it outlives the host's shutdown.

describe('spare sandboxes at stop', () => {
  it('a spare that finishes starting after stop is ended, and its folder removed, before stop resolves', async () => {
    const removed: string[] = [];
    const spares = new SpareSandboxes({
      clock: new FakeClock(),
      log: testLogging().log,
      size: 1,
      // Removal takes a moment, as a real folder's does.
      removeTurn: (turn) => new Promise<void>((resolve) => setImmediate(() => (removed.push(turn.root), resolve()))),
    });
    let ready!: (spare: Omit<SpareSandbox, 'used'>) => void;
    spares.fill('shape', () => new Promise((resolve) => (ready = resolve)));

    const stopped = spares.stop();
    // stop is now waiting on the start in flight.
    await new Promise((resolve) => setImmediate(resolve));
    // A stand-in for bubblewrap: a process group of its own, as startSandbox makes.
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    ready({
      shape: 'shape',
      turn: { root: '/spare-folder' } as TurnDir,
      prepared: {} as PreparedTurn,
      key: 'k',
      child,
      proxy: { close: async () => undefined } as unknown as EgressProxy,
      bornAt: 0,
    });
    await stopped;
    expect(removed).toEqual(['/spare-folder']);
    expect(child.exitCode !== null || child.signalCode !== null).toBe(true);
  });
});
