import { describe, expect, it } from 'vitest';
import { TerminalReporter } from '../../main/headless/terminal-reporter';

const held = (reason: string) => ({
  event: 'runner:status',
  payload: { state: 'idle', held: reason, reason: `Not taking work: ${reason}.`, profile: 'default' },
});

describe('the headless terminal and the lending terms', () => {
  it('prints a hold reason once when it begins or changes, not on every status event', () => {
    const lines: string[] = [];
    const reporter = new TerminalReporter({ write: (text: string) => lines.push(text) });
    const outside = 'Outside your lending hours — resumes Mon 09:00';
    reporter.onEvents([held(outside), held(outside)] as never);
    reporter.onEvents([held(outside)] as never);
    reporter.onEvents([held('On battery (34 %) — resumes on mains power')] as never);
    expect(lines.filter((l) => l.includes('lending hours'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('On battery'))).toHaveLength(1);
  });
});
