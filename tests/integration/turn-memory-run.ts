import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

// One run of turn-memory-child.ts (the real core and a stand-in claude in a process of
// their own): its heap and RSS before and after a turn printing `kb` KB, and the peak.
// The test (turn-memory.test.ts) and the bench's row (tests/bench/turn-memory.ts) use it.

const CHILD = fileURLToPath(new URL('./turn-memory-child.ts', import.meta.url));
const Measure = z.object({ heapMb: z.number(), rssMb: z.number() });
const ReportSchema = z.object({ before: Measure, after: Measure, peakRssMb: z.number() });
export type TurnMemory = z.infer<typeof ReportSchema>;

/** `env`: added to this process's environment (the allocator settings, or none). */
export function measureTurnMemory(kb: number, env: Record<string, string> = {}): Promise<TurnMemory> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--expose-gc', CHILD],
      { env: { ...process.env, ...env, MEMORY_TURN_KB: String(kb) }, maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${error.message}\n${stderr.slice(-2000)}`));
        resolve(ReportSchema.parse(JSON.parse(stdout.trim().split('\n').at(-1) ?? '')));
      },
    );
  });
}
