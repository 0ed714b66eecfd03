import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SechroomRunnerSession, type SechroomSessionEvent } from '../../../../main/core/planes/sechroom/runner-session';
import { TurnViewSchema, type TurnView } from '../../../../shared/turns';
import { closingTurn, rig, ScriptedTurnRunner, type Rig } from './sechroom-harness';

let r: Rig | null = null;
afterEach(async () => {
  await r?.close();
  r = null;
});

describe('SechroomRunnerSession (one profile as a host holds it)', () => {
  it('starts paused without claiming, resumes, shows the turn as a TurnView with verdict, phase and lease, and deregisters on stop', async () => {
    r = await rig();
    const t = r.emu.sechroom.createTask({ title: 'Add CSV export', objective: 'Export.' });
    const events: SechroomSessionEvent[] = [];
    const runner = new SechroomRunnerSession({
      settings: r.settings(),
      client: r.client(),
      turns: new ScriptedTurnRunner(closingTurn('completed', 'Exported.')),
      dataDir: path.join(r.tmp, 'profile'),
      clock: r.clock,
      log: r.logs.log,
      random: () => 0.5,
    });
    runner.onEvent((e) => events.push(e));
    runner.pause();
    await runner.start();
    await r.logged(/^paused — not claiming$/);
    const live = () => runner.status().status.state;
    await r.pump(
      () => live() === 'paused',
      1_000,
      () => r!.inflight() === 0,
    );
    // Paused: the advertisement is up, nothing is claimed however long it waits.
    await r.clock.advanceAsync(60_000, 5_000);
    expect(r.emu.sechroom.getTask(t.memoryId)).toMatchObject({ status: 'ready' });
    expect(runner.status()).toMatchObject({ kind: 'sechroom', instanceKey: 'codex-a', lane: 'codex-a', paused: true, status: { state: 'paused' } });

    runner.resume();
    const turns = () => events.flatMap((e) => (e.event === 'turn' ? [e.turn] : []));
    await r.pump(
      () => turns().some((v) => v.phase === 'succeeded'),
      1_000,
      () => r!.inflight() === 0,
    );
    // Every event is a valid TurnView: the Turns view, tray and notifications take it as any turn.
    for (const turn of turns()) TurnViewSchema.parse(turn);
    const last: TurnView = turns().at(-1)!;
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
    expect(turns().map((v) => v.phase)).toEqual(expect.arrayContaining(['starting', 'running', 'reporting']));
    expect(turns().find((v) => v.phase === 'reporting')).toMatchObject({ lease: 'active', leaseState: 'held', verdict: 'pass' });
    expect(runner.status()).toMatchObject({ paused: false, active: [], summary: { processed: 1, completed: 1, abandoned: 0 } });

    expect(await runner.stop()).toEqual({ processed: 1, completed: 1, abandoned: 0 });
    expect(runner.status().status).toEqual({ state: 'stopped' });
    expect(r.emu.sechroom.listInstances()[0]).toMatchObject({ status: 'deregistered' });
  });
});
