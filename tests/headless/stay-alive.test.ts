import { describe, expect, it } from 'vitest';
import { RAN_OUT_OF_WORK_EXIT_CODE, stayAlive } from '../../main/headless/stay-alive';

/** A process stand-in: records listeners and exit codes, fires events on demand. */
function fakeProcess() {
  const listeners = new Map<string, Array<() => void>>();
  const exits: number[] = [];
  const proc = {
    on(event: string, fn: () => void) {
      listeners.set(event, [...(listeners.get(event) ?? []), fn]);
      return proc;
    },
    exit(code?: number) {
      exits.push(code ?? 0);
    },
  } as unknown as Pick<NodeJS.Process, 'on' | 'exit'>;
  const emit = (event: string) => {
    for (const fn of listeners.get(event) ?? []) fn();
  };
  return { proc, exits, emit };
}

function fakeTimers() {
  const live = new Set<number>();
  let next = 1;
  return {
    live,
    setInterval: () => {
      const id = next++;
      live.add(id);
      return id as unknown as { unref?: () => void };
    },
    clearInterval: (handle: unknown) => {
      live.delete(handle as number);
    },
  };
}

describe('stayAlive', () => {
  it('exits 75 and says why when the process runs out of work without a requested stop', () => {
    const { proc, exits, emit } = fakeProcess();
    const timers = fakeTimers();
    const lines: string[] = [];
    const keeper = stayAlive({ proc, log: (m) => lines.push(m), ...timers });
    keeper.release();
    emit('beforeExit');
    expect(exits).toEqual([RAN_OUT_OF_WORK_EXIT_CODE]);
    expect(RAN_OUT_OF_WORK_EXIT_CODE).toBe(75);
    expect(lines.join('\n')).toMatch(/ran out of work without being asked to stop/);
  });

  it('lets the process end quietly after a requested stop', () => {
    const { proc, exits, emit } = fakeProcess();
    const timers = fakeTimers();
    const lines: string[] = [];
    const keeper = stayAlive({ proc, log: (m) => lines.push(m), ...timers });
    keeper.stopping();
    keeper.release();
    emit('beforeExit');
    expect(exits).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('holds the process open with a timer until released, and releases it once', () => {
    const { proc } = fakeProcess();
    const timers = fakeTimers();
    const keeper = stayAlive({ proc, log: () => undefined, ...timers });
    expect(timers.live.size).toBe(1);
    keeper.release();
    keeper.release();
    expect(timers.live.size).toBe(0);
  });
});
