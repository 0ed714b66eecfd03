import { afterEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import { InflightJournal } from '../../../../main/core/planes/sechroom/inflight-journal';
import { sechroomStatus } from '../../../../main/core/planes/sechroom/sechroom-status';
import { StorageHealth } from '../../../../main/core/sessions/storage-health';
import { closingTurn, rig, ScriptedTurnRunner, type Rig } from './sechroom-harness';

let r: Rig | null = null;
afterEach(async () => {
  await r?.close();
  r = null;
});

const task = (rig: Rig) =>
  rig.emu.sechroom.createTask({
    title: 'Add CSV export',
    objective: 'Export invoices as CSV.',
    acceptance: 'A button downloads a CSV.',
    boundaries: 'Only the billing page.',
    closeout: 'Report the files changed.',
  } as never);

/** A health over the profile's folders whose probe fails with `failing.code` while it is set. */
function storage(rig: Rig) {
  const failing: { code: string | null } = { code: null };
  const health = new StorageHealth({
    clock: rig.clock,
    log: rig.logs.log,
    random: () => 1,
    folders: () => ['/data/profiles/codex-a/inflight', '/data/profiles/codex-a/outbox'],
    probe: (dir) =>
      failing.code ? Promise.reject(Object.assign(new Error(`${failing.code}: cannot write, open '${dir}/x'`), { code: failing.code })) : Promise.resolve(),
    onChange: () => undefined,
  });
  return { failing, health };
}

describe('a Sechroom executor whose data folder cannot be written', () => {
  it('claims nothing while a folder refuses writes, says why (red, the path and the error), and claims once it takes writes again', async () => {
    r = await rig();
    const t = task(r);
    const { failing, health } = storage(r);
    failing.code = 'ENOSPC';
    const { session, states } = await r.session({ turns: new ScriptedTurnRunner(closingTurn('completed')), once: true, storage: health });
    let finished = false;
    const done = session.run().finally(() => (finished = true));
    await r.pump(() => states.some((s) => s.state === 'cannot_write'));
    // Several polls go by: not one claim, the task still offered.
    const polls = states.length;
    await r.pump(() => states.filter((s) => s.state === 'cannot_write').length >= 3);
    expect(states.length).toBeGreaterThan(polls);
    expect(r.emu.sechroom.listCompletions({ memory_id: t.memoryId })).toHaveLength(0);
    expect(r.emu.sechroom.listLeases({ memory_id: t.memoryId })).toEqual([]);
    const red = states.find((s) => s.state === 'cannot_write')!;
    const reason = 'Cannot write to /data/profiles/codex-a/inflight: no space left on device (ENOSPC) — taking no work until it can';
    expect(red).toEqual({ state: 'cannot_write', instanceId: expect.any(String), reason });
    const shown = sechroomStatus({
      config: { instance: { instanceKey: 'codex-a' } } as never,
      configProblem: null,
      signedIn: true,
      pairing: null,
      snapshot: { status: red } as never,
      paused: null,
      active: 0,
      stopping: null,
      started: true,
    });
    expect(shown).toEqual({ state: 'error', reason });
    expect(r.logs.entries.filter((e) => e.msg.startsWith('not claiming: Cannot write to')).length).toBe(1);

    failing.code = null;
    await r.pump(() => finished);
    expect(await done).toEqual({ processed: 1, completed: 1, abandoned: 0 });
    expect(r.emu.sechroom.listCompletions({ memory_id: t.memoryId })).toHaveLength(1);
    expect(await r.logged(/^the data folder takes writes again — resuming claims$/)).toBeTruthy();
  });

  it('a write that fails with a storage error during a task has the folders probed, and the next claim waits', async () => {
    r = await rig();
    task(r);
    task(r);
    const { failing, health } = storage(r);
    const outboxFull = Object.assign(new Error('ENOSPC: no space left on device, open outbox/x.json'), { code: 'ENOSPC' });
    const { session, states, outbox } = await r.session({ turns: new ScriptedTurnRunner(closingTurn('completed')), storage: health });
    // The first completion cannot be written: the disk filled during the turn.
    const enqueue = outbox.enqueue.bind(outbox);
    let first = true;
    outbox.enqueue = (entry) => {
      if (first && entry.kind === 'complete') {
        first = false;
        failing.code = 'ENOSPC';
        return Promise.reject(outboxFull);
      }
      return enqueue(entry);
    };
    void session.run();
    await r.pump(() => states.some((s) => s.state === 'cannot_write'));
    // One lease (the task whose completion could not be written), none for the second task while the disk is full.
    await r.pump(() => states.filter((s) => s.state === 'cannot_write').length >= 3);
    expect(r.emu.sechroom.listLeases({})).toHaveLength(1);
    expect(r.emu.sechroom.listCompletions({})).toHaveLength(0);
    failing.code = null;
    await r.pump(() => r!.emu.sechroom.listCompletions({}).length >= 1);
    await session.stop();
  });

  it('a task whose in-flight note cannot be written is abandoned before its turn runs, and claims stop until the folder takes writes', async () => {
    r = await rig();
    task(r);
    task(r);
    const { failing, health } = storage(r);
    const journal = new InflightJournal(path.join(r.tmp, 'inflight'));
    const begin = journal.begin.bind(journal);
    journal.begin = (note) => {
      if (!failing.code) return begin(note);
      return Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, open inflight/x.json'), { code: 'ENOSPC' }));
    };
    const turns = new ScriptedTurnRunner(closingTurn('completed'));
    const { session, states, records } = await r.session({ turns, storage: health, journal });
    // The disk fills between the gate's probe and the note.
    const check = health.check.bind(health);
    let probes = 0;
    health.check = async () => {
      const ok = await check();
      if (++probes === 1) failing.code = 'ENOSPC';
      return ok;
    };
    void session.run();
    await r.pump(() => states.some((s) => s.state === 'cannot_write'));
    expect(turns.requests).toHaveLength(0);
    expect(records.at(-1)).toMatchObject({
      state: 'abandoned',
      note: expect.stringContaining('not started: the in-flight journal could not be written (ENOSPC'),
    });
    await r.pump(() => states.filter((s) => s.state === 'cannot_write').length >= 3);
    expect(r.emu.sechroom.listLeases({})).toHaveLength(1);
    failing.code = null;
    await r.pump(() => r!.emu.sechroom.listCompletions({}).length >= 1);
    expect(turns.requests).toHaveLength(1);
    await session.stop();
  });
});
