import { afterEach, describe, expect, it } from 'vitest';
import { sechroom } from '../../shared/protocol';
import { launchSechroom, type SechroomEmu } from './sechroom-helpers';

let emu: SechroomEmu;
afterEach(() => emu?.close());

const nullMeters = { tokensIn: null, tokensOut: null, contextUsed: null, contextWindow: null };

describe('Sechroom run telemetry', () => {
  it('reads hasTelemetry:false before any event, then ingests both field sets and answers meters and the timeline', async () => {
    emu = await launchSechroom();
    const task = emu.sechroom.createTask({ title: 'Measured' });
    const path = `/decompositions/${task.decompositionId}/run/telemetry`;
    expect((await emu.wl(path)).json).toEqual({ decompositionId: task.decompositionId, hasTelemetry: false });

    // The executor's shape (B10): details with null meters, then a terminal with usage.
    const executorEvent = (kind: string, extra: Record<string, unknown>) => ({
      taskId: task.memoryId,
      kind,
      ...nullMeters,
      text: null,
      approvalState: null,
      verdict: null,
      modelId: 'gpt-5-codex',
      executorInstanceId: 'exi_1',
      leaseId: 'lse_1',
      turnId: 'turn_1',
      ...extra,
    });
    const first = await emu.wl(path, {
      body: {
        events: [
          executorEvent('Parsed', { text: '{"method":"item/completed","type":"fileChange","id":null}' }),
          executorEvent('Approval', { approvalState: 'denied' }),
          executorEvent('Terminal', { tokensIn: 1200, tokensOut: 300, contextUsed: 1500, contextWindow: 272000, text: 'Summary', verdict: 'soft-fail' }),
        ],
      },
    });
    expect(sechroom.RunTelemetryIngestResponseSchema.parse(first.json)).toEqual({ eventCount: 3, accepted: 3 });
    // The CLI's `telemetry emit` shape: no modelId or ids; kind as typed on the command line.
    const cli = await emu.wl(path, {
      body: { events: [{ taskId: task.memoryId, kind: 'terminal', ...nullMeters, tokensIn: 1500, text: null, approvalState: null, verdict: 'pass' }] },
    });
    expect(cli.json.eventCount).toBe(4);

    const read = sechroom.RunTelemetryReadSchema.parse((await emu.wl(path)).json);
    expect(read).toMatchObject({ hasTelemetry: true, eventCount: 4 });
    expect(read.tasks).toEqual([
      expect.objectContaining({
        taskId: task.memoryId,
        tokensIn: 1500,
        tokensOut: 300,
        contextUsed: 1500,
        contextWindow: 272000,
        modelId: 'gpt-5-codex',
        verdict: 'pass',
        lastKind: 'Terminal',
        eventCount: 4,
      }),
    ]);
    expect(read.timeline!.map((e) => e.kind)).toEqual(['Parsed', 'Approval', 'Terminal', 'Terminal']);
    expect(read.timeline![1]).toMatchObject({ approvalState: 'denied', leaseId: 'lse_1' });
    expect(emu.sechroom.listTelemetry({ decomposition_id: task.decompositionId })).toHaveLength(4);
    expect((await emu.call(`/_emulator/sechroom/telemetry?decomposition_id=${task.decompositionId}`)).json).toHaveLength(4);
  });

  it('refuses a bad event, an empty batch and an unknown run, naming the field', async () => {
    emu = await launchSechroom();
    const task = emu.sechroom.createTask({ title: 'x' });
    const path = `/decompositions/${task.decompositionId}/run/telemetry`;
    const kind = await emu.wl(path, { body: { events: [{ taskId: task.memoryId, kind: 'loud' }] } });
    expect([kind.status, kind.json.message]).toEqual([400, expect.stringMatching(/events\.0\.kind/)]);
    expect((await emu.wl(path, { body: { events: [{ taskId: task.memoryId, kind: 'Raw', tokensIn: -1 }] } })).json.message).toMatch(/tokensIn/);
    expect((await emu.wl(path, { body: { events: [] } })).status).toBe(400);
    expect((await emu.wl('/decompositions/wlp_unknown/run/telemetry', { body: { events: [{ taskId: 'mem_1', kind: 'Raw' }] } })).status).toBe(404);
    expect((await emu.wl('/decompositions/wlp_unknown/run/telemetry')).status).toBe(404);
    expect((await emu.wl(path)).json.hasTelemetry).toBe(false);
  });
});
