/**
 * Long-poll wake latency of the emulator on loopback: a runner holds a claim
 * (wait_ms), a unit is enqueued, and we time until the held claim is answered.
 * Run: npx tsx tests/bench/emulator-wake.ts [trials]
 */
import { startEmulator } from '../../emulator/index';

const trials = Number(process.argv[2] ?? 200);

async function post(url: string, body: unknown, token?: string): Promise<{ status: number; json: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function measure(label: string, enqueue: (emu: Awaited<ReturnType<typeof startEmulator>>) => Promise<unknown>) {
  const emu = await startEmulator({ sweepIntervalMs: 0 });
  const runner = emu.admin.createRunner({ name: 'bench' });
  const secret = runner.runner_secret;
  await post(`${emu.url}/api/runner/heartbeat`, { telemetry: { max_sessions: 1 } }, secret);
  const samples: number[] = [];
  for (let i = 0; i < trials + 10; i++) {
    const held = emu.admin.waitForEvent('claim.held');
    const claim = post(`${emu.url}/api/runner/work-orders/claim`, { wait_ms: 10_000 }, secret);
    await held;
    const t0 = performance.now();
    await Promise.all([enqueue(emu), claim]);
    const answered = await claim;
    const elapsed = performance.now() - t0;
    const unit = answered.json?.turn_execution;
    if (!unit) throw new Error(`claim answered ${answered.status}`);
    if (i >= 10) samples.push(elapsed); // the first few warm up the JIT and the connection pool
    await post(`${emu.url}/api/runner/turn-executions/${unit.id}/result`, { status: 'succeeded', summary: 'ok' }, secret);
  }
  await emu.close();
  samples.sort((a, b) => a - b);
  const fmt = (n: number) => `${n.toFixed(2)} ms`;
  console.log(`${label}: n=${samples.length} p50=${fmt(percentile(samples, 50))} p99=${fmt(percentile(samples, 99))} max=${fmt(samples.at(-1)!)}`);
}

// End to end as a test would do it: admin HTTP enqueue → held claim answered.
await measure('admin HTTP enqueue → claim answered', (emu) => post(`${emu.url}/_emulator/turn-executions`, { prompt: 'wake' }));
// The wake path alone: in-process enqueue → claim answered.
await measure('in-process enqueue → claim answered', async (emu) => emu.admin.enqueueTurnExecution({ prompt: 'wake' }));
