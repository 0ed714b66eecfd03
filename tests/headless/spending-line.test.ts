import { describe, expect, it } from 'vitest';
import { TerminalReporter } from '../../main/headless/terminal-reporter';

describe('the headless terminal and the spending caps', () => {
  it('prints one line when a cap reaches 80 %, and nothing for the other usage notices', () => {
    const now = Date.parse('2026-12-02T14:16:00Z');
    const lines: string[] = [];
    const reporter = new TerminalReporter({ write: (t: string) => lines.push(t) }, null, () => now);
    const cap = { id: 'daily-tokens' as const, used: 820_000, limit: 1_000_000, resetsAt: now + 3_600_000, costUnknown: false, reached: false };
    reporter.onEvents([
      { event: 'usage:notice', payload: { kind: 'cap', account: 'claude:default', cap, percent: 80 } },
      { event: 'usage:notice', payload: { kind: 'recovered', account: 'claude:default' } },
    ]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Spending: claude:default has used 82 % of its daily token cap \(820 k of 1 M\); it resets at \d\d:\d\d\.\n$/);
  });
});
