/**
 * What the turn history costs the host in memory, per 1,000 rows: fills a TurnRegistry the
 * way finished turns do (a long output, trimmed to the kept tail; a summary), and prints
 * the heap and RSS growth. Run: node --expose-gc --import tsx scripts/history-memory.ts [rows]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TurnHistoryStore } from '../main/core/work/turn-history-store';
import { TurnRegistry } from '../main/core/work/turn-registry';
import type { TurnView } from '../shared/turns';
import type { Logger } from '../main/core/base/ports';

const rows = Number(process.argv[2] ?? 10_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function turn(i: number): TurnView {
  return {
    id: `unit-${i.toString(36)}-${'0'.repeat(20)}`,
    kind: 'turn_execution',
    runtime: 'claude',
    seat: { id: `seat-${i % 8}`, name: `Builder ${i % 8}` },
    buildRequestId: `br-${i % 300}`,
    startedAt: new Date(1_780_000_000_000 + i * 60_000).toISOString(),
    endedAt: null,
    phase: 'running',
    pid: 10_000 + i,
    tokens: { input: 12_000 + i, output: 900 + i },
    costUsd: 0.0123,
    outputTail: `line ${i} of output `.repeat(400),
    summary: null,
    lease: 'active',
    reason: null,
  };
}

function measure(): { heap: number; rss: number } {
  gc!();
  gc!();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };
const dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-history-memory-'));
const store = new TurnHistoryStore(path.join(dir, 'turn-history.jsonl'), quiet);
await store.load();
const registry = new TurnRegistry(() => {}, store);
const before = measure();
for (let i = 0; i < rows; i++) {
  const t = turn(i);
  registry.add(t);
  registry.finish(t.id, {
    phase: 'succeeded',
    endedAt: new Date(1_780_000_000_000 + i * 60_000 + 45_000).toISOString(),
    summary: `Did thing ${i}: `.repeat(12),
  });
}
registry.drain();
await store.flush();
const after = measure();
const perK = (n: number) => ((n / rows) * 1000) / 1024 / 1024;
console.log(
  `${rows} rows: heap +${perK(after.heap - before.heap).toFixed(2)} MB per 1,000 rows, RSS +${perK(after.rss - before.rss).toFixed(2)} MB per 1,000 rows`,
);
console.log(
  `one first page (100 rows) as JSON: ${(JSON.stringify(registry.page(0, 100)).length / 1024).toFixed(1)} kB; the history's rows as JSON: ${(JSON.stringify(registry.overview()).length / 1024 / 1024).toFixed(1)} MB`,
);
rmSync(dir, { recursive: true, force: true });
