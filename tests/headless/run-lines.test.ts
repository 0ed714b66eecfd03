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
      '[fleet] codex-a=live codex-b=live\n',
      '[codex-a] [run] driven executor live — instance codex-a, lane codex-a\n',
      '[codex-b] [run] driven executor live — instance codex-b, lane codex-b\n',
    ]);
  });
});

describe('the seed’s fleet supervisor lines (B12: [<key>] exited (…), [fleet] key=state …)', () => {
  const two = [
    { id: 'codex-a', instanceKey: 'codex-a' },
    { id: 'codex-b', instanceKey: 'codex-b' },
  ];

  it('says every instance is live at start, marks them stopping once at shutdown, and each exit with its code, then the states', () => {
    const f = feed();
    const out: string[] = [];
    const lines = new RunLines(f, two, { write: (t: string) => out.push(t) });
    expect(out).toEqual(['[fleet] codex-a=live codex-b=live\n']);
    out.length = 0;
    lines.shutdown();
    lines.shutdown();
    f.push({ component: 'profile:codex-a', msg: 'shutdown requested — finishing up' });
    f.push({ component: 'profile:codex-a', msg: 'done — processed 1, completed 1, abandoned 0' });
    f.push({ component: 'profile:codex-b', level: 'error', msg: 'auth expired: the Work Layer refused the token' });
    expect(out).toEqual([
      '[fleet] codex-a=stopping codex-b=stopping\n',
      '[codex-a] [run] shutdown requested — finishing up\n',
      '[codex-a] [run] done — processed 1, completed 1, abandoned 0\n',
      '[codex-a] exited (0)\n',
      '[fleet] codex-a=exited codex-b=stopping\n',
      '[codex-b] [run] auth expired: the Work Layer refused the token\n',
      '[codex-b] exited (1)\n',
      '[fleet] codex-a=exited codex-b=exited\n',
    ]);
  });

  it('an instance whose executor starts again (new settings) is live again; a lone instance prints no fleet lines', () => {
    const f = feed();
    const out: string[] = [];
    new RunLines(f, two, { write: (t: string) => out.push(t) });
    out.length = 0;
    f.push({ component: 'profile:codex-b', msg: 'done — processed 0, completed 0, abandoned 0' });
    f.push({ component: 'profile:codex-b', msg: 'driven executor live — instance codex-b, lane codex-b' });
    expect(out.filter((l) => !l.includes('[run]'))).toEqual([
      '[codex-b] exited (0)\n',
      '[fleet] codex-a=live codex-b=exited\n',
      '[fleet] codex-a=live codex-b=live\n',
    ]);

    const one = feed();
    const alone: string[] = [];
    const single = new RunLines(one, [two[0]!], { write: (t: string) => alone.push(t) });
    single.shutdown();
    one.push({ component: 'profile:codex-a', msg: 'done — processed 0, completed 0, abandoned 0' });
    expect(alone).toEqual(['[run] done — processed 0, completed 0, abandoned 0\n']);
  });
});
