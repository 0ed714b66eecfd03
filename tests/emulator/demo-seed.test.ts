import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_OPERATORS } from '../../emulator/index';
import { launch } from './helpers';

type Emu = Awaited<ReturnType<typeof launch>>;
let emu: Emu;
afterEach(() => emu?.close());

describe('demo seed and trickle', () => {
  it('creates one tenant, the documented operators and requests in every state with history', async () => {
    emu = await launch({ seed: 'demo' });
    expect(emu.admin.listTenants()).toHaveLength(1);
    expect(emu.admin.listOperators().map((o) => [o.name, o.role])).toEqual(DEMO_OPERATORS.map((o) => [o.name, o.role]));
    const byStatus = Object.fromEntries(emu.admin.listBuildRequests().map((r) => [r.status, r]));
    expect(Object.keys(byStatus).sort()).toEqual(['blocked', 'canceled', 'closed', 'in_progress', 'open', 'paused']);
    const active = emu.admin.showBuildRequest(byStatus.in_progress!.id);
    expect(active.phase_runs.map((p) => p.phase)).toEqual(['intake', 'planning', 'plan_review', 'build']);
    expect(active.tasks.map((t) => t.status)).toEqual(['completed', 'completed', 'in_progress', 'pending']);
    expect(emu.admin.listUnits()).toHaveLength(0); // no trickle unless asked
  });

  it('trickles realistic turn executions linked to the in-progress request, and stops', async () => {
    emu = await launch({ seed: 'demo' });
    const enqueued = emu.admin.waitForEvent('unit.enqueued');
    emu.admin.setTrickle({ enabled: true, min_ms: 10, max_ms: 20 });
    await enqueued;
    emu.admin.setTrickle(false);
    const [unit] = emu.admin.listUnits();
    const active = emu.admin.listBuildRequests().find((r) => r.status === 'in_progress')!;
    expect(unit).toMatchObject({ kind: 'turn_execution', brain: 'claude', build_request_id: active.id, timeout_ms: 600_000 });
    expect(unit!.seat?.id).toBeTruthy();
    expect(unit!.session_id).toBeTruthy();
    expect(emu.admin.state().trickle.enabled).toBe(false);
  });
});
