import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StaticTokenSource } from '../../../../main/core/planes/sechroom/sechroom-auth';
import { checkSechroomConfig } from '../../../../main/core/planes/sechroom/sechroom-config';
import type { SechroomSessionDeps } from '../../../../main/core/planes/sechroom/sechroom-session-deps';
import { SechroomSessionExecutor } from '../../../../main/core/planes/sechroom/sechroom-session-executor';
import type { TurnRegistry } from '../../../../main/core/work/turn-registry';
import { TurnViewSchema, type TurnView } from '../../../../shared/turns';
import { closingTurn, rig, ScriptedTurnRunner, type Rig } from './sechroom-harness';

let r: Rig | null = null;
afterEach(async () => {
  await r?.close();
  r = null;
});

/** The Turns registry as the executor writes it: every row it was handed, in order. */
function rowsRegistry() {
  const rows: TurnView[] = [];
  const active = new Map<string, TurnView>();
  const keep = (view: TurnView) => {
    rows.push(view);
    if (view.endedAt === null) active.set(view.id, view);
    else active.delete(view.id);
  };
  const registry = {
    get: (id: string) => active.get(id),
    add: keep,
    patch: (_id: string, view: TurnView) => keep(view),
    finish: (_id: string, view: TurnView) => keep(view),
    patchHistory: (_id: string, view: TurnView) => keep(view),
  } as unknown as TurnRegistry;
  return { rows, registry };
}

describe('SechroomSessionExecutor (one Sechroom profile’s executor, as its session runs it)', () => {
  it('opens paused without claiming, resumes, shows the turn as a TurnView with verdict, phase and lease, and deregisters on close', async () => {
    r = await rig();
    const t = r.emu.sechroom.createTask({ title: 'Add CSV export', objective: 'Export.' });
    const { rows, registry } = rowsRegistry();
    const turns = new ScriptedTurnRunner(closingTurn('completed', 'Exported.'));
    const checked = checkSechroomConfig({ baseUrl: r.emu.sechroomUrl, tenant: r.tenant, instance: r.settings() });
    if (!checked.ok) throw new Error(checked.message);
    let changes = 0;
    const deps = {
      profile: { id: 'lab', name: 'lab', connector: 'sechroom' },
      dir: path.join(r.tmp, 'profile'),
      clock: r.clock,
      log: r.logs.log,
      random: () => 0.5,
      registry,
      knownSecrets: () => [],
      fetch: r.fetch,
      plumbing: () => ({ turns }),
    } as unknown as SechroomSessionDeps;
    const executor = new SechroomSessionExecutor(deps, { live: () => undefined, changed: () => changes++ });
    await executor.open(checked.config, new StaticTokenSource(r.token), false, true);
    expect(executor.isOpen).toBe(true);
    await r.logged(/^paused — not claiming$/);
    const live = () => executor.snapshot?.status.state;
    await r.pump(
      () => live() === 'paused',
      1_000,
      () => r!.inflight() === 0 && executor.waitingOnClock,
    );
    // Paused: the advertisement is up, nothing is claimed however long it waits.
    await r.clock.advanceAsync(60_000, 5_000);
    expect(r.emu.sechroom.getTask(t.memoryId)).toMatchObject({ status: 'ready' });
    expect(executor.snapshot).toMatchObject({ kind: 'sechroom', instanceKey: 'codex-a', lane: 'codex-a', paused: true, status: { state: 'paused' } });

    executor.resume();
    // Until the turn succeeded and the snapshot says its completion is delivered.
    await r.pump(
      () => rows.some((v) => v.phase === 'succeeded') && executor.snapshot?.summary.completed === 1 && executor.snapshot.outboxPending === 0,
      1_000,
      () => r!.inflight() === 0 && executor.waitingOnClock,
    );
    // Every row is a valid TurnView under the profile: the Turns view, tray and notifications take it as any turn.
    for (const turn of rows) expect(TurnViewSchema.parse(turn)).toMatchObject({ profile: 'lab' });
    const last: TurnView = rows.at(-1)!;
    expect(last).toMatchObject({
      id: expect.stringMatching(/^sechroom:lse_/),
      plane: 'sechroom',
      runtime: 'codex',
      title: 'Add CSV export',
      phase: 'succeeded',
      verdict: 'pass',
      lifecyclePhase: 'work:started',
      leaseState: 'completed',
      summary: 'Exported.',
      tokens: { input: 1200, output: 300 },
      endedAt: expect.any(String),
    });
    // Along the way: claimed (starting), running, reporting with the lease held.
    expect(rows.map((v) => v.phase)).toEqual(expect.arrayContaining(['starting', 'running', 'reporting']));
    expect(rows.find((v) => v.phase === 'reporting')).toMatchObject({ lease: 'active', leaseState: 'held', verdict: 'pass' });
    expect(executor.snapshot).toMatchObject({ paused: false, active: [], summary: { processed: 1, completed: 1, abandoned: 0 } });
    expect(executor.turns.size).toBe(0);
    expect(changes).toBeGreaterThan(0);

    await executor.close();
    expect(executor.isOpen).toBe(false);
    expect(executor.snapshot).toMatchObject({ status: { state: 'stopped' }, summary: { processed: 1, completed: 1, abandoned: 0 } });
    expect(r.emu.sechroom.listInstances()[0]).toMatchObject({ status: 'deregistered' });
  });
});
