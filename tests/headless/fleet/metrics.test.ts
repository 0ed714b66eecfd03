import { describe, expect, it } from 'vitest';
import type { HostEvent } from '../../../shared/contract';
import type { RunnerSnapshot } from '../../../shared/runner';
import type { TurnView } from '../../../shared/turns';
import { FleetMetrics } from '../../../main/headless/fleet/metrics';
import { parsePromText, sampleValue } from '../../helpers/prom-text';

const turn = (id: string, phase: TurnView['phase'], plane?: 'sechroom'): TurnView => ({ id, profile: 'lab', phase, ...(plane ? { plane } : {}) }) as TurnView;
const snapshot = (failures: number, undelivered: number): HostEvent =>
  ({
    event: 'runner:snapshot',
    payload: { profile: 'lab', heartbeat: { consecutiveFailures: failures }, results: { undelivered } } as RunnerSnapshot,
  }) as HostEvent;

async function read(metrics: FleetMetrics) {
  const { body, contentType } = await metrics.exposition();
  expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePromText(body).samples;
}

describe('FleetMetrics (read off the core events)', () => {
  it('counts each finished turn once, by plane and status; heartbeat failures as they rise; the outbox as it stands', async () => {
    const metrics = new FleetMetrics({ processMetrics: false });
    metrics.onEvents([{ event: 'turns:update', payload: { active: [turn('a', 'running')], removed: [], finished: [turn('b', 'succeeded')] } }]);
    metrics.onEvents([
      {
        event: 'turns:update',
        payload: { active: [], removed: ['a'], finished: [turn('a', 'failed'), turn('c', 'succeeded', 'sechroom')], updated: [turn('b', 'succeeded')] },
      },
    ]);
    for (const [failures, undelivered] of [
      [1, 2],
      [3, 2],
      [0, 1],
      [1, 0],
    ] as const)
      metrics.onEvents([snapshot(failures, undelivered)]);
    const samples = await read(metrics);
    expect(sampleValue(samples, 'runner_tray_turns_total', { plane: 'rost', status: 'succeeded' })).toBe(1);
    expect(sampleValue(samples, 'runner_tray_turns_total', { plane: 'rost', status: 'failed' })).toBe(1);
    expect(sampleValue(samples, 'runner_tray_turns_total', { plane: 'sechroom', status: 'succeeded', profile: 'lab' })).toBe(1);
    expect(sampleValue(samples, 'runner_tray_heartbeat_failures_total', { profile: 'lab' })).toBe(4);
    expect(sampleValue(samples, 'runner_tray_outbox_pending', { profile: 'lab' })).toBe(0);
  });

  it('keeps the remaining percent of each usage window, dropping accounts that left', async () => {
    const metrics = new FleetMetrics({ processMetrics: false });
    const usage = (keys: string[]): HostEvent =>
      ({
        event: 'usage:update',
        payload: {
          reservePercent: 2,
          accounts: keys.map((key) => ({ key, windows: { primary: { usedPercent: 30, windowMinutes: 300, resetsAt: null }, secondary: null } })),
        },
      }) as HostEvent;
    metrics.onEvents([usage(['claude:default', 'codex:team'])]);
    metrics.onEvents([usage(['codex:team'])]);
    const samples = await read(metrics);
    expect(sampleValue(samples, 'runner_tray_usage_remaining_percent', { account: 'codex:team', window: 'primary' })).toBe(70);
    expect(sampleValue(samples, 'runner_tray_usage_remaining_percent', { account: 'claude:default' })).toBeUndefined();
  });
});
