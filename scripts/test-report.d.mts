// Types for scripts/test-report.mjs (plain JavaScript, run by Node before anything is built).
export interface Skip {
  file: string;
  reason: string;
}

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  skips: Skip[];
}

export const EXPECTED_SKIPS: ReadonlyMap<string, string>;
export function vitestSkipReason(fullName: string): string;
export function readVitest(report: unknown, root: string): Counts;
export function readPlaywright(report: unknown, configDir: string): Counts & { ran: number };
export function skipSummary(skips: readonly Skip[], strict: boolean): { lines: string[]; unexpected: Array<Skip & { count: number }> };
