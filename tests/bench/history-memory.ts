// What the turn history costs the built headless host in memory (issue 15, must-have 2):
// the host's idle RSS with 10,000 finished turns on disk against the same host with none,
// each after a window (a WebSocket client, as the page is) has listed the first page of
// the Turns view. Both hosts are paired with the emulator through a seed state file and
// measured alike; the figure is the difference per 1,000 rows.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import type { RunningEmulator } from '../../emulator';
import { historyLog } from '../../main/core/work/turn-history-codec';
import type { TurnView } from '../../shared/turns';
import { startHost, stop, type Host } from './headless-cost';
import { openAddress, windowProtocols } from '../helpers/window-session';

const ROWS = 10_000;
/** A finished turn keeps the last 1,000 characters of its output (main/core/work/lean-turn.ts). */
const TAIL_CHARS = 1_000;

export interface HistoryMemory {
  /** Idle RSS of the host with no history, and with ROWS rows on disk (MB), one per run. */
  emptyRssMb: number[];
  fullRssMb: number[];
  rows: number;
  /** The median difference, per 1,000 rows (MB). */
  perThousandMb: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? NaN;

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
}

/**
 * Finished turns as the history log keeps them once compacted (the store's own format): each
 * with a full kept tail and a summary.
 */
function historyFile(rows: number): string {
  const base = Date.parse('2026-10-01T00:00:00Z');
  const turns = Array.from({ length: rows }, (_, i): TurnView => {
    const ended = new Date(base + i * 60_000 + 45_000).toISOString();
    return {
      id: `10000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      kind: 'turn_execution',
      runtime: i % 3 === 0 ? 'codex' : 'claude',
      seat: { id: `seat-${i % 8}`, name: `Builder ${i % 8}` },
      buildRequestId: `br-${i % 300}`,
      startedAt: new Date(base + i * 60_000).toISOString(),
      endedAt: ended,
      phase: 'succeeded',
      pid: null,
      tokens: { input: 12_000 + i, output: 900 + i },
      costUsd: 0.0123,
      outputTail: `turn ${i}: a line of its output\n`.repeat(40).slice(-TAIL_CHARS),
      summary: `Turn ${i} did what it was asked and said so. `.repeat(4),
      lease: null,
      reason: null,
      delivery: { state: 'delivered', attempts: 1, since: ended, reason: null },
    };
  });
  return historyLog(turns);
}

/** A window's first request of the Turns view: `turns:list` for the newest page, over the host's WebSocket. */
async function listFirstPage(address: string): Promise<number> {
  const url = new URL(address);
  // As a window would: the address is traded for a cookie and a window key, and the socket offers both.
  const opened = await openAddress(address);
  if (!opened.windowKey) throw new Error(`the address opened no window (HTTP ${opened.status})`);
  const ws = new WebSocket(`ws://${url.host}/ws`, windowProtocols(opened.windowKey), { origin: url.origin, headers: { cookie: opened.cookie } });
  try {
    await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
    const answer = new Promise<{ ok: boolean; value?: { total: number } }>((resolve) =>
      ws.on('message', (data: Buffer) => {
        const frame = JSON.parse(data.toString('utf8')) as { type: string; id?: number; result?: { ok: boolean; value?: { total: number } } };
        if (frame.type === 'result' && frame.id === 1 && frame.result) resolve(frame.result);
      }),
    );
    ws.send(JSON.stringify({ id: 1, command: 'turns:list', input: { offset: 0, limit: 100 } }));
    const result = await answer;
    if (!result.ok || !result.value) throw new Error(`turns:list failed: ${JSON.stringify(result)}`);
    return result.value.total;
  } finally {
    ws.close();
  }
}

/** One host's idle RSS after it listed the first page, with `rows` rows on disk. */
async function idleRssWithHistory(emu: RunningEmulator, rows: number, settleMs: number): Promise<number> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-bench-history-'));
  const runner = emu.admin.createRunner({ name: `bench-history-${rows}` });
  const stateFile = path.join(dataDir, 'seed-state.json');
  writeFileSync(stateFile, JSON.stringify({ ...runner, app_url: emu.url }), { mode: 0o600 });
  const heartbeat = () => emu.admin.waitForEvent((e) => e.type === 'runner.heartbeat' && e.data.runner_id === runner.runner_id, { timeoutMs: 30_000 });
  let host: Host | null = null;
  try {
    // The first start moves the identity into the data folder; the measured one is a restart.
    host = startHost(dataDir, ['--control-plane', emu.url, '--state-file', stateFile]);
    await heartbeat();
    await stop(host);
    if (rows > 0) writeFileSync(path.join(dataDir, 'turn-history.jsonl'), historyFile(rows));
    const beat = heartbeat();
    host = startHost(dataDir, ['--control-plane', emu.url]);
    await beat;
    const total = await listFirstPage(await host.address);
    if (total !== rows) throw new Error(`the host lists ${total} history rows, not the ${rows} on disk`);
    await sleep(settleMs);
    return rssMb(host.child.pid!);
  } finally {
    if (host) await stop(host);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function measureHistoryMemory(emu: RunningEmulator, options: { runs: number; settleMs: number }): Promise<HistoryMemory> {
  const emptyRssMb: number[] = [];
  const fullRssMb: number[] = [];
  // Interleaved, so a busy moment of the machine falls on both sides alike.
  for (let i = 0; i < options.runs; i++) {
    emptyRssMb.push(await idleRssWithHistory(emu, 0, options.settleMs));
    fullRssMb.push(await idleRssWithHistory(emu, ROWS, options.settleMs));
  }
  return { emptyRssMb, fullRssMb, rows: ROWS, perThousandMb: ((median(fullRssMb) - median(emptyRssMb)) * 1000) / ROWS };
}
