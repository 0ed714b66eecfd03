// The bench's row for a turn printing 10 MB: the host's RSS after it against before it
// (turn-memory-run.ts, a full GC on both sides), the median of `runs`, with the allocator
// settings the service unit and the container start the host with (malloc-env.ts) and,
// interleaved as the baseline, without them.
import { HOST_MALLOC_ENV } from '../../main/headless/malloc-env';
import { measureTurnMemory } from '../integration/turn-memory-run';
import { p, type Row } from './host-rows';

export interface TurnMemoryRuns {
  /** RSS after − before (MB), one per run: as started by the service unit / container, and with glibc's defaults. */
  hostRssMb: number[];
  defaultRssMb: number[];
  heapMb: number[];
  peakRssMb: number[];
}

const TARGET_MB = 5;
const median = (v: number[]) => p(v, 50);
const mb = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(1)} MB`;

export async function measureTurnMemoryRuns(runs: number): Promise<TurnMemoryRuns> {
  const out: TurnMemoryRuns = { hostRssMb: [], defaultRssMb: [], heapMb: [], peakRssMb: [] };
  for (let i = 0; i < runs; i++) {
    const host = await measureTurnMemory(10 * 1024, HOST_MALLOC_ENV);
    out.hostRssMb.push(host.after.rssMb - host.before.rssMb);
    out.heapMb.push(host.after.heapMb - host.before.heapMb);
    out.peakRssMb.push(host.peakRssMb - host.before.rssMb);
    const plain = await measureTurnMemory(10 * 1024);
    out.defaultRssMb.push(plain.after.rssMb - plain.before.rssMb);
  }
  return out;
}

export function turnMemoryRow(m: TurnMemoryRuns): Row {
  const rss = median(m.hostRssMb);
  return [
    'A turn printing 10 MB: host RSS after it − before (p50, after a full GC; the allocator settings of the service unit and image)',
    mb(rss),
    `glibc defaults ${mb(median(m.defaultRssMb))}`,
    '',
    `heap ${mb(median(m.heapMb))}, peak ${mb(median(m.peakRssMb))} (n=${m.hostRssMb.length})`,
    `≤ +${TARGET_MB} MB`,
    rss <= TARGET_MB,
    "the turn's freed buffers stayed in the process (the C allocator, V8's pooled pages)",
  ];
}
