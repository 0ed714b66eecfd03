#!/usr/bin/env node
// THE BENCH'S REFERENCE RUNNER: not Runner Tray, and not a runner anyone should use. The
// least a runner can do on the same wire, so each host figure of `npm run bench` is read as
// a ratio to it: one long-poll claim held at a time, the unit's runtime spawned directly the
// moment the claim answers (no sandbox, no turn folder, no journal, no logs, no retries),
// the start POSTed beside that spawn, the prompt written once the start is taken, the
// runtime's result line POSTed as the unit's summary the moment the runtime exits.
//
// Started by tests/bench/reference-cost.ts with BENCH_URL, BENCH_RUNNER_ID, BENCH_RUNNER_SECRET
// and BENCH_RUNTIME (a stand-in runtime script run with this node). It prints `ready` once its
// first claim is held and runs until it is killed.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { z } from 'zod';

const env = z
  .object({
    BENCH_URL: z.string().url(),
    BENCH_RUNNER_ID: z.string().min(1),
    BENCH_RUNNER_SECRET: z.string().min(16),
    BENCH_RUNTIME: z.string().min(1),
  })
  .parse(process.env);
const base = new URL(env.BENCH_URL);
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
const HeartbeatAnswer = z.object({ claim: z.object({ long_poll_max_ms: z.number().int().nonnegative().optional() }).optional() }).passthrough();
const ClaimAnswer = z.object({ turn_execution: z.object({ id: z.string().min(1), prompt: z.string().default('') }).optional() }).passthrough();
const StandInResult = z.object({ type: z.literal('result'), is_error: z.boolean(), result: z.string() });

/** POSTs a JSON body with the runner's secret; resolves with the parsed answer (`{}` for a 204). */
function post(path, body) {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(JSON.stringify(body));
    const req = http.request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        path,
        method: 'POST',
        headers: { authorization: `Bearer ${env.BENCH_RUNNER_SECRET}`, 'content-type': 'application/json', 'content-length': payload.length },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) >= 300) reject(new Error(`${path}: HTTP ${res.statusCode} ${text.slice(0, 200)}`));
          else resolve(text ? JSON.parse(text) : {});
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Runs one claimed turn: spawn at once, start beside it, prompt after the start, result at exit. */
async function run(unit) {
  const child = spawn(process.execPath, [env.BENCH_RUNTIME], { stdio: ['pipe', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => (out += chunk));
  const exited = new Promise((resolve) => child.once('close', (code) => resolve(code)));
  await post(`/api/runner/turn-executions/${unit.id}/start`, {});
  child.stdin.end(unit.prompt);
  const code = await exited;
  const last = out.trim().split('\n').at(-1) ?? '';
  const parsed = StandInResult.safeParse(JSON.parse(last || '{}'));
  const ok = code === 0 && parsed.success && !parsed.data.is_error;
  await post(`/api/runner/turn-executions/${unit.id}/result`, {
    status: ok ? 'succeeded' : 'failed',
    summary: parsed.success ? parsed.data.result.slice(0, 2000) : `exit ${code}`,
  });
}

const beat = HeartbeatAnswer.parse(await post('/api/runner/heartbeat', {}));
const waitMs = beat.claim?.long_poll_max_ms ?? 0;
if (waitMs <= 0) throw new Error('the reference runner needs a server that offers long-poll');
let first = true;
for (;;) {
  const claim = post('/api/runner/work-orders/claim', { wait_ms: waitMs });
  if (first) {
    first = false;
    process.stdout.write('ready\n');
  }
  const answer = ClaimAnswer.parse(await claim);
  // One turn at a time: the bench's pickups run one after another.
  if (answer.turn_execution) await run(answer.turn_execution);
}
