// A running turn's line, printed by the runtime → on screen in the Turns view: the browser
// test tests/e2e/live-transcript.spec.ts run as it is (the built headless host, Chromium,
// stand-ins printing `step <i> printed-at=<epoch ms>` for claude stream-json and the codex
// app-server's deltas), its in-page delays read from the file RUNNER_TRAY_LIVE_LATENCY_OUT
// names. The test asserts what shows, never how fast; this row is where the 200 ms lives.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ms, p, type Row } from './host-rows';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PLAYWRIGHT = path.join(ROOT, 'node_modules', '.bin', 'playwright');
const Delays = z.object({ claude: z.array(z.number()).default([]), codex: z.array(z.number()).default([]) });
export type LiveLines = z.infer<typeof Delays>;

/** `runs` runs of the spec (five lines per runtime each); the delays in ms, per runtime. */
export function measureLiveLines(runs: number): LiveLines {
  const all: LiveLines = { claude: [], codex: [] };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-live-'));
  try {
    for (let i = 0; i < runs; i++) {
      const out = path.join(dir, `run-${i}.json`);
      const run = spawnSync(PLAYWRIGHT, ['test', '--config', 'tests/e2e/playwright.config.ts', 'tests/e2e/live-transcript.spec.ts', '--reporter=line'], {
        cwd: ROOT,
        env: { ...process.env, RUNNER_TRAY_LIVE_LATENCY_OUT: out },
        encoding: 'utf8',
        timeout: 180_000,
      });
      if (run.status !== 0) throw new Error(`the live-transcript spec failed (exit ${run.status}):\n${run.stdout}${run.stderr}`);
      const delays = Delays.parse(JSON.parse(readFileSync(out, 'utf8')));
      all.claude.push(...delays.claude);
      all.codex.push(...delays.codex);
    }
    return all;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The target: the first line on screen within 200 ms of the runtime printing it. */
const LIVE_TARGET_MS = 200;

export function liveRow(live: LiveLines): Row {
  const [claude, codex] = [p(live.claude, 50), p(live.codex, 50)];
  return [
    'Running turn: a line printed → on screen p50, claude stream-json / codex app-server (in the page)',
    `${ms(claude)} / ${ms(codex)}`,
    '',
    '',
    `p99 ${ms(p(live.claude, 99))} / ${ms(p(live.codex, 99))} (n=${live.claude.length}/${live.codex.length})`,
    `≤ ${LIVE_TARGET_MS} ms`,
    live.claude.length > 0 && live.codex.length > 0 ? Math.max(claude, codex) <= LIVE_TARGET_MS : null,
    'a line waited in the host, on the socket or in the page',
  ];
}
