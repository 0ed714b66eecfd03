// Types for scripts/test-report.mjs (plain JavaScript, run by Node before anything is built).
export interface Skip {
  file: string;
  reason: string;
}

/** A test that failed, or failed first and passed on a retry, with the first line of its error. */
export interface NamedTest {
  file: string;
  name: string;
  error: string;
}

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  skips: Skip[];
  failures: NamedTest[];
  flaky: NamedTest[];
}

export const EXPECTED_SKIPS: ReadonlyMap<string, string>;
export function firstLine(message: unknown): string;
export function testLines(tests: readonly NamedTest[]): string[];
export function vitestSkipReason(fullName: string): string;
export function readVitest(report: unknown, root: string): Counts;
export function readPlaywright(report: unknown, configDir: string): Counts & { ran: number };
export function skipSummary(skips: readonly Skip[], strict: boolean): { lines: string[]; unexpected: Array<Skip & { count: number }> };
