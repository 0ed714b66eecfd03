import { describe, expect, it } from 'vitest';
import type { ClaimedWork } from '../../../main/core/planes/rost/connector';
import { ConnectorError } from '../../../main/core/connectors/errors';
import { ClaimLoop, type ClaimLoopDeps, type ClaimOptions } from '../../../main/core/sessions/claim-loop';
import { MachineSlots } from '../../../main/core/sessions/machine-slots';
import { SerialClaimLoop } from '../../../main/core/planes/rost/serial-claim-loop';
import { FakeClock } from '../../helpers/fake-clock';
import { testLogging } from '../../helpers/test-logger';

const unit = (id: string) => ({ id, kind: 'turn_execution' }) as unknown as ClaimedWork;

/** A control plane with a queue of units; each launched unit runs until the test ends it. */
function rig(options: { max?: number; longPoll?: number | null; machineCap?: number; machine?: MachineSlots; profile?: string } = {}) {
  const clock = new FakeClock();
  const queue: string[] = [];
  const claims: ClaimOptions[] = [];
  const running = new Map<string, () => void>();
  let blocked: string | null = null;
  let failNext: Error | null = null;
  const pendingPolls = new Set<() => void>();
  const deps: ClaimLoopDeps<ClaimedWork> = {
    clock,
    log: testLogging().log,
    random: () => 0.5,
    profile: options.profile ?? 'p',
    machine: options.machine ?? new MachineSlots(() => options.machineCap ?? 8),
    maxSessions: () => options.max ?? 2,
    blocked: () => blocked,
    longPollMaxMs: () => (options.longPoll === undefined ? 25_000 : options.longPoll),
    interactiveClaimMs: () => 1000,
    claim: async (o) => {
      claims.push(o);
      if (failNext) {
        const e = failNext;
        failNext = null;
        throw e;
      }
      const next = queue.shift();
      if (next) return unit(next);
      if (o.waitMs === undefined) return null;
      // A long-poll: answers when work comes or the signal aborts.
      return new Promise<ClaimedWork | null>((resolve) => {
        const check = () => {
          const n = queue.shift();
          if (n) {
            pendingPolls.delete(check);
            resolve(unit(n));
          }
        };
        pendingPolls.add(check);
        o.signal?.addEventListener('abort', () => {
          pendingPolls.delete(check);
          resolve(null);
        });
      });
    },
    launch: (u) => new Promise<void>((resolve) => running.set(u.id, resolve)),
    revoked: () => {
      blocked = 'revoked';
    },
  };
  const settle = async () => {
    for (let i = 0; i < 20; i++) await Promise.resolve();
  };
  return {
    clock,
    deps,
    queue,
    claims,
    running,
    settle,
    push: (...ids: string[]) => {
      queue.push(...ids);
      pendingPolls.forEach((p) => p());
    },
    finish: (id: string) => {
      running.get(id)!();
      running.delete(id);
    },
    block: (why: string | null) => {
      blocked = why;
    },
    failNextClaim: (e: Error) => {
      failNext = e;
    },
  };
}

/** Launches that hand the test their early slot release (the runtime done, the turn still being recorded). */
function earlyFrees(r: ReturnType<typeof rig>): Map<string, () => void> {
  const frees = new Map<string, () => void>();
  r.deps.launch = (u, slotFree) =>
    new Promise<void>((resolve) => {
      r.running.set(u.id, resolve);
      frees.set(u.id, slotFree!);
    });
  return frees;
}

describe('a profile claim loop', () => {
  it('long-polls one claim at a time and launches up to max sessions, then waits for a slot', async () => {
    const r = rig({ max: 2 });
    const loop = new ClaimLoop(r.deps);
    loop.start();
    await r.settle();
    expect(r.claims).toHaveLength(1);
    expect(r.claims[0]).toMatchObject({ interactiveOnly: false, waitMs: 25_000 });
    r.push('a', 'b', 'c');
    await r.settle();
    expect([...r.running.keys()]).toEqual(['a', 'b']);
    // Full: no claim is outstanding while both slots are taken.
    const claimsWhenFull = r.claims.length;
    await r.clock.advanceAsync(60_000);
    expect(r.claims).toHaveLength(claimsWhenFull);
    r.finish('a');
    await r.settle();
    expect([...r.running.keys()]).toEqual(['b', 'c']);
    await loop.stop();
  });

  it('claims again the moment a turn frees its slot, without waiting for the turn to be recorded, and frees it once', async () => {
    const r = rig({ max: 1 });
    const frees = earlyFrees(r);
    const loop = new ClaimLoop(r.deps);
    r.push('a', 'b', 'c');
    loop.start();
    await r.settle();
    expect([...r.running.keys()]).toEqual(['a']);
    // The runtime is done; its result is still being written (the launch has not ended).
    frees.get('a')!();
    await r.settle();
    expect([...r.running.keys()]).toEqual(['a', 'b']);
    // The end of a's launch does not free a second slot.
    r.finish('a');
    await r.settle();
    expect([...r.running.keys()]).toEqual(['b']);
    await r.clock.advanceAsync(60_000);
    expect([...r.running.keys()]).toEqual(['b']);
    await loop.stop();
  });

  it('without a long-poll the slot comes back at the turn end (the server still counts the unit until its result lands)', async () => {
    const r = rig({ max: 1, longPoll: null });
    const frees = earlyFrees(r);
    const loop = new ClaimLoop(r.deps);
    r.push('a', 'b');
    loop.start();
    loop.heartbeat();
    await r.settle();
    expect([...r.running.keys()]).toEqual(['a']);
    frees.get('a')!();
    await r.clock.advanceAsync(5_000);
    expect([...r.running.keys()]).toEqual(['a']);
    r.finish('a');
    await r.settle();
    expect([...r.running.keys()]).toEqual(['b']);
    await loop.stop();
  });

  it('calls a long-poll off when paused and claims nothing until resumed', async () => {
    const r = rig();
    const loop = new ClaimLoop(r.deps);
    loop.start();
    await r.settle();
    r.block('paused');
    loop.nudge();
    await r.settle();
    r.push('a');
    await r.clock.advanceAsync(10_000);
    expect(r.running.size).toBe(0);
    expect(r.claims).toHaveLength(1);
    r.block(null);
    loop.nudge();
    await r.settle();
    expect([...r.running.keys()]).toEqual(['a']);
    // And the next long-poll is out.
    expect(r.claims).toHaveLength(3);
    await loop.stop();
  });

  it('without a long-poll keeps the seed cadence: interactive claims every interval, a full claim after a heartbeat', async () => {
    const r = rig({ longPoll: null });
    const loop = new ClaimLoop(r.deps);
    loop.start();
    await r.settle();
    expect(r.claims).toHaveLength(0);
    await r.clock.advanceAsync(1000);
    expect(r.claims.map((c) => c.interactiveOnly)).toEqual([true]);
    loop.heartbeat();
    await r.settle();
    expect(r.claims.map((c) => c.interactiveOnly)).toEqual([true, false]);
    await loop.stop();
  });

  it('backs off after a failed claim, and a 401 marks the session revoked', async () => {
    const r = rig();
    const loop = new ClaimLoop(r.deps);
    r.failNextClaim(new ConnectorError('network', 'down'));
    loop.start();
    await r.settle();
    expect(r.claims).toHaveLength(1);
    loop.nudge(); // a nudge does not cut a backoff short
    await r.settle();
    expect(r.claims).toHaveLength(1);
    await r.clock.advanceAsync(2_000);
    expect(r.claims).toHaveLength(2);
    await loop.stop();

    const s = rig();
    const revokedLoop = new ClaimLoop(s.deps);
    s.failNextClaim(new ConnectorError('unauthorized', 'revoked'));
    revokedLoop.start();
    await s.settle();
    expect(s.deps.blocked()).toBe('revoked');
    await revokedLoop.stop();
  });

  it('the seed loop runs one unit to its end before its next tick', async () => {
    const r = rig({ longPoll: null, max: 4 });
    const loop = new SerialClaimLoop(r.deps);
    loop.start();
    r.push('a', 'b');
    loop.heartbeat();
    await r.settle();
    expect([...r.running.keys()]).toEqual(['a']);
    await r.clock.advanceAsync(5_000);
    expect(r.claims).toHaveLength(1);
    r.finish('a');
    await r.settle();
    await r.clock.advanceAsync(1000);
    expect([...r.running.keys()]).toEqual(['b']);
    expect(r.claims.map((c) => c.interactiveOnly)).toEqual([false, true]);
    await loop.stop();
    r.finish('b');
  });
});

describe('the machine-wide cap', () => {
  it('holds over two busy profiles and shares the machine evenly', async () => {
    const machine = new MachineSlots(() => 3);
    const a = rig({ max: 8, machine, profile: 'a' });
    const b = rig({ max: 8, machine, profile: 'b' });
    const loopA = new ClaimLoop(a.deps);
    loopA.start();
    a.push('a1', 'a2', 'a3', 'a4', 'a5');
    await a.settle();
    expect(a.running.size).toBe(3);
    const loopB = new ClaimLoop(b.deps);
    loopB.start();
    b.push('b1', 'b2', 'b3');
    await b.settle();
    expect(b.running.size).toBe(0);
    // Freed slots go to the profile holding fewest, until the shares are even.
    const both = async () => {
      await a.settle();
      await b.settle();
      await a.settle();
    };
    a.finish('a1');
    await both();
    expect([a.running.size, b.running.size]).toEqual([2, 1]);
    a.finish('a2');
    await both();
    expect(a.running.size + b.running.size).toBe(3);
    expect(Math.abs(a.running.size - b.running.size)).toBe(1);
    for (const id of [...a.running.keys()]) a.finish(id);
    await both();
    // b has work queued: it now holds more; the cap still holds.
    expect(b.running.size).toBeGreaterThanOrEqual(2);
    expect(machine.inUse).toBe(a.running.size + b.running.size);
    expect(machine.inUse).toBeLessThanOrEqual(3);
    await loopA.stop();
    await loopB.stop();
  });
});
