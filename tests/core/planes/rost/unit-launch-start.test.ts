import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClaimedWork } from '../../../../main/core/planes/rost/connector';
import { RunningJournal, type RunningRecord } from '../../../../main/core/planes/rost/running-journal';
import { RunningNotes, startingView } from '../../../../main/core/planes/rost/unit-launch-start';
import { testLogging } from '../../../helpers/test-logger';

// The process's start time token (read from /proc or ps in the real module): a fixed one here.
vi.mock('../../../../main/core/exec/process-start', () => ({ processStartToken: vi.fn(async () => 'linux:100:200') }));

const NOW = '2026-12-07T10:00:00.000Z';
const unit: ClaimedWork = { id: 'u1', kind: 'work_order', prompt: 'go', seat: { id: 's1', name: 'Builder' }, build_request_id: 'br-7', attempt: 3 };

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rt-launch-start-'));
  dirs.push(dir);
  return dir;
}

describe('startingView: the row of a unit that starts now', () => {
  it('carries its seat, build request and profile, and nothing of a run yet', () => {
    expect(startingView(unit, 'p1', NOW)).toEqual({
      id: 'u1',
      profile: 'p1',
      kind: 'work_order',
      runtime: null,
      seat: { id: 's1', name: 'Builder' },
      buildRequestId: 'br-7',
      startedAt: NOW,
      endedAt: null,
      phase: 'starting',
      pid: null,
      tokens: null,
      costUsd: null,
      outputTail: '',
      summary: null,
      lease: null,
      reason: null,
    });
    expect(startingView({ id: 'u2', kind: 'turn_execution', prompt: '', seat: { id: 's2' } }, 'p1', NOW)).toMatchObject({
      seat: { id: 's2', name: null },
      buildRequestId: null,
    });
  });
});

describe("RunningNotes: a unit's note in the running journal", () => {
  const notes = (dir: string) => {
    const logging = testLogging();
    const journal = new RunningJournal(dir);
    const n = new RunningNotes(journal, logging.log, unit, { runnerId: 'r1', secret: 'never-written' }, startingView(unit, 'p1', NOW));
    return { n, journal, warnings: () => logging.entries.filter((e) => e.level === 'warn').map((e) => e.msg) };
  };

  it('writes the note with the runtime once it is known, then the process with its start token', async () => {
    const { n, journal } = notes(tempDir());
    await n.recordRunning('codex');
    const first: RunningRecord = {
      runnerId: 'r1',
      unit: { id: 'u1', kind: 'work_order' },
      attempt: 3,
      runtime: 'codex',
      startedAt: NOW,
      pid: null,
      seat: { id: 's1', name: 'Builder' },
      buildRequestId: 'br-7',
    };
    expect(await journal.leftovers()).toEqual([first]);
    n.onSpawn(process.pid);
    await n.written();
    const [noted] = await journal.leftovers();
    expect(noted).toEqual({ ...first, pid: process.pid, processStart: 'linux:100:200' });
    expect(JSON.stringify(noted)).not.toContain('never-written');
  });

  it('writes the note of a process that started while the first note was being written only after it', async () => {
    /** A journal whose first write waits until the test lets it go. */
    class SlowFirstWrite extends RunningJournal {
      calls: string[] = [];
      release: () => void = () => undefined;
      private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
      override async record(record: RunningRecord): Promise<void> {
        const n = this.calls.filter((c) => c.startsWith('begin')).length + 1;
        this.calls.push(`begin ${n} pid=${record.pid}`);
        if (n === 1) await this.gate;
        await super.record(record);
        this.calls.push(`end ${n}`);
      }
    }
    const journal = new SlowFirstWrite(tempDir());
    const n = new RunningNotes(journal, testLogging().log, unit, { runnerId: 'r1', secret: 's' }, startingView(unit, 'p1', NOW));
    const first = n.recordRunning('claude');
    n.onSpawn(process.pid);
    // Every promise callback runs: the process's token is read, its note still waits for the first.
    await new Promise((resolve) => setImmediate(resolve));
    expect(journal.calls).toEqual(['begin 1 pid=null']);
    journal.release();
    await first;
    await n.written();
    expect(journal.calls).toEqual(['begin 1 pid=null', 'end 1', `begin 2 pid=${process.pid}`, 'end 2']);
    expect(await journal.leftovers()).toMatchObject([{ runtime: 'claude', pid: process.pid }]);
  });

  it('logs a note of the process it could not write, and goes on', async () => {
    const dir = tempDir();
    const blocked = path.join(dir, 'file');
    writeFileSync(blocked, 'not a folder');
    const { n, warnings } = notes(path.join(blocked, 'journal'));
    await expect(n.recordRunning('claude')).rejects.toThrow();
    n.onSpawn(process.pid);
    await n.written();
    expect(warnings()).toEqual(['could not note the runtime process in the journal']);
  });
});
