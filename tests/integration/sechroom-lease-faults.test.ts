import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExecutorSession } from '../../main/core/planes/sechroom/executor-session';
import type { TurnOutcome, TurnRequest } from '../../main/core/planes/sechroom/turn-runner';
import { closingTurn, rig, ScriptedTurnRunner, type Rig } from '../core/planes/sechroom/sechroom-harness';

// Two executor instances (the real session, client, keeper and durable outbox of the core)
// work 50 tasks against the real emulator over loopback while every Sechroom route
// answers 503s at times, the heartbeat more often than the rest, and some claim and
// completion answers are lost after the Work Layer acted on them. The seed's cadence
// (a beat every 30 s on a 120 s lease) runs on a fake clock that moves only while
// nothing is in flight, so no wall-clock time is measured and nothing sleeps.

const TASKS = 50;

/** A small seeded generator (mulberry32), so the fault rolls and turn lengths repeat from run to run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let r: Rig | null = null;
afterEach(async () => {
  await r?.close();
  r = null;
});

describe('Sechroom leases under plane faults', () => {
  it('50 tasks on 2 instances with 503s on every route: no lease expires under its turn, nothing runs twice, no completion is refused, nothing is lost', async () => {
    const random = seeded(27);
    // The bearer outlives the run (hours of fake time): a token expiring is another story than a lease.
    r = await rig({ random, tokenTtlMs: 24 * 3_600_000 });
    const rg = r;
    const tasks = Array.from({ length: TASKS }, (_, i) => rg.emu.sechroom.createTask({ title: `Task ${i + 1}`, objective: `Do thing ${i + 1}.` }));

    // Every route, the heartbeat worst of all (about two in three beats fail); claim-next
    // and completion answers sometimes lost after the Work Layer acted (an empty 2xx, a cut socket).
    rg.emu.admin.addFault({ route: '/sechroom/*', error: { rate: 0.2, status: 503 } });
    rg.emu.admin.addFault({ route: '/sechroom/me/executor-task-leases/*/heartbeat', error: { rate: 0.6, status: 503 } });
    rg.emu.admin.addFault({ route: '/sechroom/me/executor-instances/*/dispatch-offers/claim-next', malformed: { rate: 0.1, kind: 'empty' } });
    rg.emu.admin.addFault({ route: '/sechroom/me/executor-task-leases/*/complete', drop: { rate: 0.1, when: 'after' } });

    // The fast fake executor: a turn of 1 to 5 (fake) minutes that closes out, and stops at once when its signal aborts.
    const turnLeases = new Map<string, string[]>();
    const working = new Set<string>();
    const turn = (request: TurnRequest): Promise<TurnOutcome> => {
      turnLeases.set(request.taskId, [...(turnLeases.get(request.taskId) ?? []), request.leaseId]);
      working.add(request.leaseId);
      const lengthMs = 60_000 + Math.floor(random() * 240_000);
      return new Promise<TurnOutcome>((resolve) => {
        const end = (outcome: TurnOutcome) => {
          working.delete(request.leaseId);
          resolve(outcome);
        };
        const timer = rg.clock.setTimeout(() => end(closingTurn('completed')(request) as TurnOutcome), lengthMs);
        request.signal.addEventListener('abort', () => {
          rg.clock.clearTimeout(timer);
          end({ status: 'canceled', reason: 'interrupted' });
        });
      });
    };

    const sessions: ExecutorSession[] = [];
    const runs: Promise<unknown>[] = [];
    for (const instanceKey of ['codex-a', 'codex-b']) {
      const { session } = await rg.session({
        turns: new ScriptedTurnRunner(turn),
        settings: { instanceKey },
        outboxDir: path.join(rg.tmp, `outbox-${instanceKey}`),
      });
      sessions.push(session);
      runs.push(session.run());
    }

    const completed = () => rg.emu.sechroom.listTasks({ status: 'completed' }).length;
    // Time moves to the next timer only while no request is in flight and each session waits on the clock or on its turn.
    const settledNow = () => rg.inflight() === 0 && sessions.every((s) => s.idle || s.turnRecords.some((t) => t.state === 'running' && working.has(t.leaseId)));
    for (let i = 0; completed() < TASKS; i++) {
      if (i > 1_000_000) throw new Error(`the run never finished: ${completed()} of ${TASKS} completed`);
      await new Promise((resolve) => setImmediate(resolve));
      await rg.clock.settle();
      if (completed() >= TASKS || !settledNow()) continue;
      const next = rg.clock.nextDueAt;
      await rg.clock.advanceAsync(next === null ? 1_000 : Math.max(0, next - rg.clock.now()));
    }
    for (const session of sessions) await session.stop();
    await Promise.all(runs);

    const leases = rg.emu.sechroom.listLeases();
    const turnLeaseIds = new Set([...turnLeases.values()].flat());
    const counts = {
      expiredWhileTheirTurnRan: leases.filter((l) => l.status === 'expired' && turnLeaseIds.has(l.id)).length,
      ranTwice: [...turnLeases.values()].filter((ids) => ids.length > 1).length,
      completionsRefused: rg.logs.entries.filter((e) => e.msg.startsWith('COMPLETE REJECTED')).length,
      lost: tasks.filter((t) => rg.emu.sechroom.listCompletions({ memory_id: t.memoryId }).length !== 1).length,
    };
    // The faults did bite: many beats failed, and some claim and completion answers were lost.
    const injected = rg.emu.admin.listFaults();
    expect(injected.every((f) => f.hits > 0)).toBe(true);
    expect(counts).toEqual({ expiredWhileTheirTurnRan: 0, ranTwice: 0, completionsRefused: 0, lost: 0 });
    expect(rg.emu.sechroom.listTasks().filter((t) => t.status === 'completed')).toHaveLength(TASKS);
  }, 120_000);
});
