import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { LifecycleOutcome, RequestBoard, RequestDetailView } from '../../../shared/operator';
import type { PairingState } from '../../../shared/runner';
import type { TurnView } from '../../../shared/turns';
import { startHarness, type Harness } from '../../integration/core-harness';
import { signIn } from './operator-helpers';
import { gone } from '../../helpers/processes';

const FAKE = fileURLToPath(new URL('../../fixtures/timed-runtime.mjs', import.meta.url));

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** A paired runner with the fake runtime, a signed-in tenant admin, the demo requests, and 200 ms lease heartbeats. */
async function setup(): Promise<{ harness: Harness; requestId: string }> {
  const harness = await startHarness({
    settings: { maxSessions: 2 },
    emulator: {
      seed: 'demo',
      config: { oauthIntervalSec: 1, leaseHeartbeatMs: 200, longPollMaxMs: 2_000, caps: { tenant: 8, project: 8, defaultAccount: 8 } },
    },
    core: { runtimeBinaries: { claude: FAKE, codex: FAKE } },
  });
  const pairing = await harness.invoke<PairingState>('pairing:start');
  if (pairing.phase !== 'waiting') throw new Error('not waiting');
  harness.emu.admin.approvePairing(pairing.userCode);
  await harness.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true);
  await signIn(harness, 'Ada Admin');
  const requestId = harness.emu.admin.listBuildRequests().find((r) => r.status === 'in_progress')!.id;
  return { harness, requestId };
}

function running(harness: Harness, unitId: string): Promise<unknown> {
  return harness.waitForEvent('turns:update', (u) => u.active.some((t) => t.id === unitId && t.phase === 'running' && t.pid !== null));
}

function finished(harness: Harness, unitId: string): Promise<TurnView> {
  return harness.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === unitId), 15_000).then((u) => u.finished.find((t) => t.id === unitId)!);
}

describe('what this runner does when an operator pauses or cancels a request', () => {
  it('pause: the running turn reaches its end, nothing more is claimed for the request until it resumes', async () => {
    const { harness, requestId } = await setup();
    h = harness;
    const first = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:wait:2500', build_request_id: requestId });
    await running(h, first.id);
    const board = await h.invoke<RequestBoard>('requests:list');
    expect(board.activeHere).toEqual([{ turnId: first.id, buildRequestId: requestId }]);

    const outcome = await h.invoke<LifecycleOutcome>('requests:pause', { id: requestId, reason: 'freeze' });
    expect(outcome).toMatchObject({ kind: 'done', result: { status: 'paused' } });
    await h.waitForEvent('turns:update', (u) => u.active.some((t) => t.id === first.id && t.lease === 'pause_requested'));
    const second = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:wait:10', build_request_id: requestId });

    const done = await finished(h, first.id);
    expect(done.phase).toBe('succeeded');
    expect(h.emu.admin.listResults({ unit_id: first.id })[0]).toMatchObject({ status: 'succeeded' });
    // Heartbeats and claims go on; the paused request's unit stays in the queue.
    const seen = h.emu.admin.listEvents({ limit: 100_000 }).at(-1)?.seq ?? 0;
    let beats = 0;
    await h.emu.admin.waitForEvent((e) => e.type === 'runner.heartbeat' && e.seq > seen && ++beats >= 2, { timeoutMs: 5_000 });
    expect(h.emu.admin.getUnit(second.id)?.status).toBe('queued');

    const detail = await h.invoke<RequestDetailView>('requests:show', { id: requestId });
    expect(detail.request.status).toBe('paused');
    expect(detail.turns.history.map((t) => t.id)).toContain(first.id);

    await h.invoke('requests:resume', { id: requestId });
    expect((await finished(h, second.id)).phase).toBe('succeeded');
  });

  it("cancel: the running turn's process tree stops and the turn is reported canceled", async () => {
    const { harness, requestId } = await setup();
    h = harness;
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep', build_request_id: requestId });
    const active = (await running(h, unit.id)) as { active: { id: string; pid: number | null }[] };
    const pid = active.active.find((t) => t.id === unit.id)!.pid!;
    const outcome = await h.invoke<LifecycleOutcome>('requests:cancel', { id: requestId, reason: 'wrong repo' });
    expect(outcome).toMatchObject({ kind: 'done', result: { status: 'canceled' } });
    const view = await finished(h, unit.id);
    expect(view.phase).toBe('canceled');
    expect(view.reason).toContain('request_canceled');
    // How soon is a bench figure; here: the runtime is really stopped, not just reported.
    expect(await gone([pid])).toEqual([]);
    const results = await h.emu.admin
      .waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === unit.id, { timeoutMs: 10_000, since: 0 })
      .then(() => h!.emu.admin.listResults({ unit_id: unit.id }));
    expect(results[0]).toMatchObject({ status: 'canceled' });
    const detail = await h.invoke<RequestDetailView>('requests:show', { id: requestId });
    expect(detail.turns.active).toEqual([]);
    expect(detail.turns.history[0]).toMatchObject({ id: unit.id, phase: 'canceled' });
  });
});
