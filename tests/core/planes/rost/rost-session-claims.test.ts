import { describe, expect, it } from 'vitest';
import type { HeartbeatRequest, HeartbeatResponse } from '../../../../shared/protocol';
import { defaultSettings } from '../../../../shared/settings';
import { ConnectorError } from '../../../../main/core/connectors/errors';
import type { ClaimedWork, ClaimOptions, RunnerConnector } from '../../../../main/core/planes/rost/connector';
import { claimLoop } from '../../../../main/core/planes/rost/rost-session-claims';
import type { RostSessionDeps, SessionHooks, SessionParts } from '../../../../main/core/planes/rost/rost-session-deps';
import { SerialClaimLoop } from '../../../../main/core/planes/rost/serial-claim-loop';
import { ClaimLoop } from '../../../../main/core/sessions/claim-loop';
import { MachineSlots } from '../../../../main/core/sessions/machine-slots';
import { FakeClock } from '../../../helpers/fake-clock';
import { testLogging } from '../../../helpers/test-logger';

const carried = { body: { name: 'box' } as unknown as HeartbeatRequest, answered: (_r: HeartbeatResponse) => undefined };

/** The claim loop of a session over fake parts: a connector with a queue of units, a gate, a heartbeat and a launcher. */
function rig(opts: { paired?: boolean; runtimes?: ('claude' | 'codex')[]; longPoll?: number | null; carries?: boolean; strategy?: 'adaptive' | 'seed' } = {}) {
  const clock = new FakeClock();
  const logging = testLogging();
  const queue: ClaimedWork[] = [];
  const claims: ClaimOptions[] = [];
  const launched: string[] = [];
  let failNext: unknown = null;
  let revoked = 0;
  let carrying = 0;
  const connector = {
    claim: async (_c: unknown, o: ClaimOptions) => {
      claims.push(o);
      if (failNext) {
        const e = failNext;
        failNext = null;
        throw e;
      }
      const next = queue.shift();
      if (next || o.waitMs === undefined) return next ?? null;
      // A held long-poll with nothing to hand out: it answers when the loop calls it off.
      return new Promise<null>((resolve) => o.signal?.addEventListener('abort', () => resolve(null)));
    },
  } as unknown as RunnerConnector;
  const parts = {
    identityKeeper: {
      current: opts.paired === false ? null : { connector, credentials: { runnerId: 'r1', secret: 's' } },
      markRevoked: async () => {
        revoked++;
      },
    },
    runtimes: { claimable: () => opts.runtimes ?? ['claude'] },
    heartbeat: {
      longPoll: opts.longPoll === undefined ? null : opts.longPoll,
      carriesHeartbeat: opts.carries ?? false,
      carrying: async <T>(claim: (h: typeof carried) => Promise<T>) => {
        carrying++;
        return claim(carried);
      },
    },
    launcher: { launch: async (u: ClaimedWork) => void launched.push(u.id) },
    // The data folders take a write (storage-health.test.ts covers when they do not).
    storage: { check: async () => true, reason: null },
  } as unknown as SessionParts;
  const deps = {
    clock,
    log: logging.log,
    random: () => 0.5,
    profile: { id: 'p1', name: 'P1', connector: 'rost' },
    machine: new MachineSlots(() => 4),
    settings: () => ({ ...defaultSettings('box'), maxSessions: 2, interactiveClaimMs: 1_000 }),
    strategy: opts.strategy ?? 'adaptive',
  } as unknown as RostSessionDeps;
  const hooks = { blocked: () => null } as unknown as SessionHooks;
  const loop = claimLoop(deps, hooks, () => parts);
  return {
    loop,
    clock,
    queue,
    claims,
    launched,
    logs: () => logging.entries.map((e) => e.msg),
    revoked: () => revoked,
    carrying: () => carrying,
    failNext: (e: unknown) => (failNext = e),
  };
}

const unit = (id: string): ClaimedWork => ({ id, kind: 'turn_execution', prompt: '' });

describe("claimLoop: the Rost session's claims", () => {
  it('is the adaptive loop, or the seed CLI’s serial cadence when asked for', () => {
    expect(rig().loop).toBeInstanceOf(ClaimLoop);
    expect(rig({ strategy: 'seed' }).loop).toBeInstanceOf(SerialClaimLoop);
  });

  it('claims for the ready runtimes with the current credentials and launches what it gets', async () => {
    const r = rig({ runtimes: ['claude', 'codex'] });
    r.queue.push(unit('u1'));
    r.loop.start();
    await r.clock.advanceAsync(1_000);
    expect(r.claims[0]).toMatchObject({ interactiveOnly: true, runtimes: ['claude', 'codex'] });
    expect(r.claims[0]).not.toHaveProperty('heartbeat');
    expect(r.launched).toEqual(['u1']);
    expect(r.logs()).toContain('claimed a unit');
    await r.loop.stop();
  });

  it('asks nothing of the control plane while unpaired or while no runtime is ready', async () => {
    for (const r of [rig({ paired: false }), rig({ runtimes: [] })]) {
      r.queue.push(unit('u1'));
      r.loop.start();
      await r.clock.advanceAsync(3_000);
      expect(r.claims).toEqual([]);
      expect(r.launched).toEqual([]);
      await r.loop.stop();
    }
  });

  it('carries the heartbeat on a held long-poll where the plane offers it, and only then', async () => {
    const carrying = rig({ longPoll: 25_000, carries: true });
    carrying.queue.push(unit('u1'));
    carrying.loop.start();
    await carrying.clock.settle();
    // The unit came on the first; the second is held, carrying the beat too.
    expect(carrying.launched).toEqual(['u1']);
    expect(carrying.claims).toHaveLength(2);
    for (const c of carrying.claims) expect(c).toMatchObject({ interactiveOnly: false, waitMs: 25_000, heartbeat: carried });
    expect(carrying.carrying()).toBe(2);
    await carrying.loop.stop();

    const plain = rig({ longPoll: 25_000, carries: false });
    plain.queue.push(unit('u1'));
    plain.loop.start();
    await plain.clock.settle();
    expect(plain.claims[0]).toMatchObject({ waitMs: 25_000 });
    expect(plain.claims[0]).not.toHaveProperty('heartbeat');
    expect(plain.carrying()).toBe(0);
    await plain.loop.stop();

    // A short claim (no long-poll) never carries the beat.
    const short = rig({ longPoll: null, carries: true });
    short.loop.start();
    await short.clock.advanceAsync(1_000);
    expect(short.claims).toHaveLength(1);
    expect(short.claims[0]).not.toHaveProperty('heartbeat');
    expect(short.carrying()).toBe(0);
    await short.loop.stop();
  });

  it('tells the identity the runner was revoked on a 401', async () => {
    const r = rig();
    r.failNext(new ConnectorError('unauthorized', 'revoked', 401));
    r.loop.start();
    await r.clock.advanceAsync(1_000);
    expect(r.revoked()).toBe(1);
    await r.loop.stop();
  });
});
