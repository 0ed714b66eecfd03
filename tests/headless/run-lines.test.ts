import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../shared/contract';
import type { LogFeed } from '../../main/core/base/ports';
import { RunLines } from '../../main/headless/run-lines';

function feed(): LogFeed & { push(entry: Partial<LogEntry>): void } {
  const listeners = new Set<(entry: LogEntry) => void>();
  return {
    subscribe(listener: (entry: LogEntry) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    push(entry: Partial<LogEntry>) {
      for (const l of listeners) l({ level: 'info', time: '2026-12-07T10:00:00Z', msg: '', ...entry } as LogEntry);
    },
  } as never;
}

describe('the seed’s [run] progress lines on the terminal', () => {
  it('prints every Sechroom profile’s lines: one alone as `executor run`, a fleet prefixed by instance key as the seed’s fleet', () => {
    const one = feed();
    const out1: string[] = [];
    new RunLines(one, [{ id: 'work', instanceKey: 'codex-a' }], { write: (t: string) => out1.push(t) });
    one.push({ component: 'profile:work', msg: 'claimed mem_1 (lease lse_1)' });
    one.push({ component: 'profile:default', msg: 'a Rost line' });
    expect(out1).toEqual(['[run] claimed mem_1 (lease lse_1)\n']);

    const fleet = feed();
    const out: string[] = [];
    new RunLines(
      fleet,
      [
        { id: 'codex-a', instanceKey: 'codex-a' },
        { id: 'codex-b', instanceKey: 'codex-b' },
      ],
      { write: (t: string) => out.push(t) },
    );
    fleet.push({ component: 'profile:codex-a', msg: 'driven executor live — instance codex-a, lane codex-a' });
    fleet.push({ component: 'profile:codex-b', msg: 'driven executor live — instance codex-b, lane codex-b' });
    fleet.push({ component: 'profile:codex-b', level: 'debug', msg: 'noise' });
    expect(out).toEqual([
      '[codex-a] [run] driven executor live — instance codex-a, lane codex-a\n',
      '[codex-b] [run] driven executor live — instance codex-b, lane codex-b\n',
    ]);
  });
});
