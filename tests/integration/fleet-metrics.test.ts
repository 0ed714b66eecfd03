import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { FleetMetrics } from '../../main/headless/fleet/metrics';
import { startMetricsServer, type MetricsServer } from '../../main/headless/fleet/metrics-server';
import { parsePromText, sampleValue } from '../helpers/prom-text';
import { delivered, pairWithClaude, startHarness, type Harness } from './core-harness';

// The real core against the emulator, with the headless host's metrics listening beside it:
// a turn runs, and a scrape of /metrics (read with a strict parser of the text format)
// shows the turn counted, the claim timed, the outbox empty and the process's own figures.

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let h: Harness | null = null;
let server: MetricsServer | null = null;
afterEach(async () => {
  await server?.close();
  await h?.close();
  server = null;
  h = null;
});

async function scrape(url: string) {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePromText(await response.text());
}

describe('/metrics of the headless host', () => {
  it('counts a finished turn by plane and status, times its claim, and reports the outbox and the process', async () => {
    h = await startHarness({
      settings: { runtime: 'claude', maxSessions: 1 },
      emulator: { config: { longPollMaxMs: 2_000 } },
      core: { runtimeBinaries: { claude: FAKE, codex: FAKE } },
    });
    const metrics = new FleetMetrics();
    h.core.host.subscribe((batch) => metrics.onEvents(batch));
    server = await startMetricsServer({ metrics, host: '127.0.0.1', port: 0 });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);

    const before = await scrape(server.url);
    expect(sampleValue(before.samples, 'runner_tray_turns_total')).toBeUndefined();
    expect(before.types.get('runner_tray_turns_total')).toBe('counter');
    expect(before.types.get('runner_tray_claim_duration_seconds')).toBe('histogram');
    expect(sampleValue(before.samples, 'runner_tray_process_resident_memory_bytes')).toBeGreaterThan(0);

    await pairWithClaude(h);
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:counted' });
    await delivered(h, unit.id);

    const after = await scrape(server.url);
    expect(sampleValue(after.samples, 'runner_tray_turns_total', { profile: 'default', plane: 'rost', status: 'succeeded' })).toBe(1);
    expect(sampleValue(after.samples, 'runner_tray_claim_duration_seconds_count', { plane: 'rost' })).toBe(1);
    expect(sampleValue(after.samples, 'runner_tray_claim_duration_seconds_bucket', { plane: 'rost', le: '+Inf' })).toBe(1);
    expect(sampleValue(after.samples, 'runner_tray_outbox_pending', { profile: 'default' })).toBe(0);
    expect(sampleValue(after.samples, 'runner_tray_heartbeat_failures_total', { profile: 'default' })).toBe(0);
    // Nothing but /metrics answers, and nothing in it names the runner's secret or the control plane.
    expect((await fetch(server.url.replace('/metrics', '/'))).status).toBe(404);
    const text = await (await fetch(server.url)).text();
    expect(text).not.toContain(h.emu.url);
  });
});
