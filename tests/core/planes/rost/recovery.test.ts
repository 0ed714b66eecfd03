import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TurnView } from '../../../../shared/turns';
import { systemClock } from '../../../../main/core/base/ports';
import { processStartToken } from '../../../../main/core/exec/process-start';
import { isRunning } from '../../../../main/core/exec/process-tree';
import type { ResultOutbox } from '../../../../main/core/planes/rost/outbox';
import { reportInterrupted, stopOrphans } from '../../../../main/core/planes/rost/recovery';
import { RunningJournal, type RunningRecord } from '../../../../main/core/planes/rost/running-journal';
import type { TurnRegistry } from '../../../../main/core/work/turn-registry';
import { FakeClock } from '../../../helpers/fake-clock';
import { gone } from '../../../helpers/processes';
import { testLogging } from '../../../helpers/test-logger';

const record = (id: string, patch: Partial<RunningRecord> = {}): RunningRecord => ({
  runnerId: 'r1',
  unit: { id, kind: 'turn_execution' },
  attempt: 2,
  runtime: 'claude',
  startedAt: '2026-12-07T09:00:00.000Z',
  pid: null,
  ...patch,
});

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

describe('reportInterrupted: the units a dead host was running', () => {
  it('reports each failed once with the attempt it ran, clears its note, and adds a failed row', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'rt-recovery-'));
    dirs.push(dir);
    const journal = new RunningJournal(dir);
    const records = [record('u1', { seat: { id: 's', name: 'Seat' }, buildRequestId: 'br-1', pid: 4242 }), record('u2', { runtime: null })];
    for (const r of records) await journal.record(r);
    const enqueued: unknown[] = [];
    const outbox = { enqueue: async (entry: unknown) => void enqueued.push(entry) } as unknown as ResultOutbox;
    const rows: TurnView[] = [];
    const registry = { addFinished: (t: TurnView) => void rows.push(t) } as unknown as TurnRegistry;
    const logging = testLogging();
    const clock = new FakeClock(Date.parse('2026-12-07T10:00:00.000Z'));

    await reportInterrupted({ clock, log: logging.log, profile: 'p1', journal, outbox, registry }, records);

    expect(enqueued).toEqual([
      {
        runnerId: 'r1',
        unit: { id: 'u1', kind: 'turn_execution' },
        result: { status: 'failed', summary: 'runner restarted', log_ref: 'runner-local:u1', runtime: 'claude-cli', idempotency_key: 'u1:2' },
      },
      {
        runnerId: 'r1',
        unit: { id: 'u2', kind: 'turn_execution' },
        result: { status: 'failed', summary: 'runner restarted', log_ref: 'runner-local:u2', idempotency_key: 'u2:2' },
      },
    ]);
    expect(await journal.leftovers()).toEqual([]);
    expect(rows[0]).toEqual({
      id: 'u1',
      profile: 'p1',
      kind: 'turn_execution',
      runtime: 'claude',
      seat: { id: 's', name: 'Seat' },
      buildRequestId: 'br-1',
      startedAt: '2026-12-07T09:00:00.000Z',
      endedAt: '2026-12-07T10:00:00.000Z',
      phase: 'failed',
      pid: 4242,
      tokens: null,
      costUsd: null,
      outputTail: '',
      summary: 'runner restarted',
      lease: null,
      reason: 'interrupted by a restart: reported failed',
      delivery: { state: 'sending', attempts: 0, since: '2026-12-07T10:00:00.000Z', reason: null },
    });
    expect(rows[1]).toMatchObject({ id: 'u2', runtime: null, seat: null, buildRequestId: null });
  });
});

describe.runIf(process.platform === 'linux')('stopOrphans: runtimes the dead host left running', () => {
  function orphan(): ChildProcess & { pid: number } {
    const child = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    children.push(child);
    if (child.pid === undefined) throw new Error('sleep did not start');
    return child as ChildProcess & { pid: number };
  }

  it('stops a recorded process that is still the very one started', async () => {
    const child = orphan();
    const token = await processStartToken(child.pid);
    expect(token).not.toBeNull();
    const logging = testLogging();
    await stopOrphans({ clock: systemClock, log: logging.log }, [record('u1', { pid: child.pid, processStart: token })]);
    expect(await gone([child.pid])).toEqual([]);
    expect(logging.entries.map((e) => [e.msg, e.data?.unit, e.data?.pid])).toEqual([['stopped a runtime left running by the previous run', 'u1', child.pid]]);
  });

  it('leaves alone a pid that now belongs to another process, and records without a pid or start token', async () => {
    const child = orphan();
    const logging = testLogging();
    await stopOrphans({ clock: systemClock, log: logging.log }, [
      record('reused', { pid: child.pid, processStart: 'linux:1:1' }),
      record('no-token', { pid: child.pid }),
      record('no-pid', { pid: null, processStart: 'linux:1:1' }),
    ]);
    expect(await isRunning(child.pid)).toBe(true);
    expect(logging.entries).toEqual([]);
  });
});
