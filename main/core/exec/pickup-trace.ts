import { z } from 'zod';
import type { Logger } from '../base/ports';

/**
 * `RUNNER_TRAY_TRACE_PICKUP=1`: each turn logs where its milliseconds went from `execute`
 * to the runtime's start (docs/benchmarks.md, the pickup breakdown). Off (the default) it
 * is one shared object whose marks do nothing.
 */
export interface PickupTrace {
  mark(phase: string): void;
  /** Logs the phases once (the runtime started). */
  done(log: Logger): void;
}

const OFF: PickupTrace = { mark() {}, done() {} };
const enabled = z.enum(['1', 'true']).safeParse(process.env.RUNNER_TRAY_TRACE_PICKUP).success;

export function pickupTrace(): PickupTrace {
  if (!enabled) return OFF;
  const t0 = performance.now();
  let last = t0;
  const phases: Record<string, number> = {};
  return {
    mark(phase) {
      const now = performance.now();
      phases[phase] = Math.round((now - last) * 100) / 100;
      last = now;
    },
    done(log) {
      log.info('pickup trace', { ...phases, totalMs: Math.round((performance.now() - t0) * 100) / 100 });
    },
  };
}
