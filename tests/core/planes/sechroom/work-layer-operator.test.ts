import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../../emulator/index';
import { StaticTokenSource } from '../../../../main/core/planes/sechroom/sechroom-auth';
import { CommandFailure } from '../../../../main/core/base/dispatch';
import { WorkLayerOperator, workLayerAccessFromEnv, WORK_LAYER_NOT_SET } from '../../../../main/core/planes/sechroom/work-layer-operator';
import { briefActions } from '../../../../shared/work-layer';
import { testLogging } from '../../../helpers/test-logger';
import { handExecutor } from '../../../helpers/work-layer-executor';

let emu: RunningEmulator | null = null;
afterEach(async () => {
  await emu?.close();
  emu = null;
});

async function setup() {
  emu = await startEmulator({ sweepIntervalMs: 0 });
  const minted = emu.sechroom.mintToken();
  const access = { baseUrl: emu.sechroomUrl, tenant: minted.tenant, tokens: new StaticTokenSource(minted.access_token) };
  const work = new WorkLayerOperator({ access: { ok: true, access }, log: testLogging().log, knownSecrets: () => [minted.access_token] });
  const brief = emu.sechroom.createBrief({ title: 'Invoice export <img src=x onerror=alert(1)>' });
  const plan = emu.sechroom.createDecomposition({ brief_id: brief.id, title: 'Plan A', status: 'Accepted' });
  const held = emu.sechroom.createTask({ title: 'Held task', decomposition_id: plan.id, lane: 'codex-a' });
  const done = emu.sechroom.createTask({ title: 'Done task', decomposition_id: plan.id });
  // An executor instance takes both; one completes soft-fail, the other stays leased.
  const executor = await handExecutor(emu, minted);
  await executor.complete(done.memoryId, 'Done task', 'soft-fail');
  await executor.take(held.memoryId);
  return { work, brief, plan, held, done };
}

describe('WorkLayerOperator (the Work view) against the emulator', () => {
  it('lists briefs with their plans and tasks: status, lane, lease holder, verdict and last completion', async () => {
    const { work, brief, plan, held, done } = await setup();
    const board = await work.board();
    expect(board.state).toBe('ready');
    if (board.state !== 'ready') return;
    const shown = board.briefs.find((b) => b.id === brief.id)!;
    expect(shown).toMatchObject({ title: 'Invoice export <img src=x onerror=alert(1)>', status: 'ready_for_decomposition' });
    const p = shown.plans.find((x) => x.id === plan.id)!;
    expect(p).toMatchObject({ title: 'Plan A', status: 'Accepted', taskCount: 2 });
    expect(p.tasks.find((t) => t.memoryId === held.memoryId)).toMatchObject({
      status: 'leased',
      laneId: 'codex-a',
      leaseHolder: 'codex-a',
      cancelRequested: false,
    });
    expect(p.tasks.find((t) => t.memoryId === done.memoryId)).toMatchObject({
      status: 'completed',
      verdict: 'soft-fail',
      leaseHolder: null,
      lastCompletion: { verdict: 'soft-fail', title: 'Done task — driven closeout', source: 'codex-a' },
    });
  });

  it('pauses, resumes, parks, unparks, supersedes and cancels briefs as the Work Layer takes them, and refuses a move it does not allow', async () => {
    const { work, brief } = await setup();
    expect(await work.briefAction({ briefId: brief.id, action: 'pause', reasonCode: 'operator_request', reason: 'waiting on design' })).toMatchObject({
      changed: true,
      message: expect.stringMatching(/^Paused/),
    });
    expect(emu!.sechroom.listBriefs().find((b) => b.id === brief.id)).toMatchObject({
      status: 'paused',
      reasonCode: 'operator_request',
      reason: 'waiting on design',
      source: 'runner-tray',
    });
    expect(briefActions('paused')).toEqual(['resume', 'cancel', 'park', 'supersede']);
    await work.briefAction({ briefId: brief.id, action: 'park' });
    expect(emu!.sechroom.listBriefs().find((b) => b.id === brief.id)!.status).toBe('parked');
    await expect(work.briefAction({ briefId: brief.id, action: 'resume', reasonCode: 'operator_request' })).rejects.toMatchObject({
      code: 'invalid_transition',
    });
    await work.briefAction({ briefId: brief.id, action: 'unpark' });
    expect(emu!.sechroom.listBriefs().find((b) => b.id === brief.id)!.status).toBe('ready_for_decomposition');
    // Cancel ends the running lease at once.
    expect(await work.briefAction({ briefId: brief.id, action: 'cancel', reasonCode: 'scope_change' })).toMatchObject({ changed: true });
    expect(emu!.sechroom.listLeases({ status: 'active' })).toHaveLength(0);
    const other = emu!.sechroom.createBrief({ title: 'Other' });
    await work.briefAction({ briefId: other.id, action: 'supersede' });
    expect(emu!.sechroom.listBriefs().find((b) => b.id === other.id)!.status).toBe('superseded');
  });

  it('returns a plan for revision with notes: a new pending plan holds its unfinished tasks', async () => {
    const { work, plan, brief } = await setup();
    const outcome = await work.returnForRevision({ decompositionId: plan.id, notes: 'Split the export in two.' });
    expect(outcome.message).toMatch(/^Returned for revision/);
    const board = await work.board();
    if (board.state !== 'ready') throw new Error('not ready');
    const plans = board.briefs.find((b) => b.id === brief.id)!.plans;
    expect(plans.find((p) => p.id === plan.id)).toMatchObject({ status: 'ReturnedForRevision' });
    expect(plans.find((p) => p.revisionOf === plan.id)).toMatchObject({ status: 'Pending', revisionNotes: 'Split the export in two.', taskCount: 2 });
  });

  it('says how to set it up when no Work Layer is configured, and why a half-set environment is not usable', async () => {
    expect(workLayerAccessFromEnv({})).toEqual({ ok: false, message: WORK_LAYER_NOT_SET });
    const half = workLayerAccessFromEnv({ RUNNER_TRAY_SECHROOM_URL: 'ftp://x', SECHROOM_TOKEN: 't' });
    expect(half).toEqual({
      ok: false,
      message: 'The Sechroom Work Layer is not usable: RUNNER_TRAY_SECHROOM_URL must be an http(s) address; RUNNER_TRAY_SECHROOM_TENANT is required.',
    });
    const work = new WorkLayerOperator({ access: half, log: testLogging().log, knownSecrets: () => [] });
    expect(await work.board()).toEqual({ state: 'not_configured', message: (half as { message: string }).message });
    await expect(work.briefAction({ briefId: 'x', action: 'park' })).rejects.toBeInstanceOf(CommandFailure);
  });
});
