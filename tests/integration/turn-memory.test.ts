import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

// A turn printing 10 MB costs the host its transcript budget, not its output: the heap the
// core keeps after it (a full GC, in a process of its own: turn-memory-child.ts) is within
// 5 MB of the same host's before it.

const CHILD = fileURLToPath(new URL('./turn-memory-child.ts', import.meta.url));
const Measure = z.object({ heapMb: z.number(), rssMb: z.number() });
const ReportSchema = z.object({ before: Measure, after: Measure, peakRssMb: z.number() });

function measure(kb: number): Promise<z.infer<typeof ReportSchema>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--expose-gc', CHILD],
      { env: { ...process.env, MEMORY_TURN_KB: String(kb) }, maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${error.message}\n${stderr.slice(-2000)}`));
        resolve(ReportSchema.parse(JSON.parse(stdout.trim().split('\n').at(-1) ?? '')));
      },
    );
  });
}

describe('a turn printing 10 MB', () => {
  it("holds the host's heap within +5 MB of what it was before the turn", async () => {
    const report = await measure(10 * 1024);
    expect(report.after.heapMb - report.before.heapMb).toBeLessThanOrEqual(5);
  }, 180_000);
});
