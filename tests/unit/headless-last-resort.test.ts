import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { installLastResort, LAST_RESORT_EXIT_CODE } from '../../main/headless/last-resort';
import { RateLimit } from '../../main/headless/rate-limit';

function fakeProcess() {
  const emitter = new EventEmitter();
  const exits: number[] = [];
  const proc = Object.assign(emitter, { exit: (code?: number) => void exits.push(code ?? 0) }) as unknown as Pick<NodeJS.Process, 'on' | 'exit'>;
  return { emitter, proc, exits };
}

describe('the headless host last-resort handler', () => {
  it('logs, stops the running turns through the core, then exits non-zero', async () => {
    const { emitter, proc, exits } = fakeProcess();
    const logs: string[] = [];
    let stopped = 0;
    let finishStop: () => void = () => undefined;
    installLastResort({
      proc,
      log: (m) => logs.push(m),
      stop: () => {
        stopped++;
        return new Promise<void>((resolve) => (finishStop = resolve));
      },
      setTimer: () => undefined,
    });
    emitter.emit('uncaughtException', new Error('boom'));
    emitter.emit('unhandledRejection', new Error('again'));
    expect(logs[0]).toContain('unexpected error: Error: boom');
    expect(logs[1]).toContain('unhandled rejection');
    // One stop, and no exit until the turns were stopped.
    expect(stopped).toBe(1);
    expect(exits).toEqual([]);
    finishStop();
    await new Promise((r) => setImmediate(r));
    expect(exits).toEqual([LAST_RESORT_EXIT_CODE]);
  });

  it('exits after its grace time even when stopping hangs', () => {
    const { emitter, proc, exits } = fakeProcess();
    const timers: (() => void)[] = [];
    installLastResort({ proc, log: () => undefined, stop: () => new Promise(() => undefined), setTimer: (fn) => timers.push(fn) });
    emitter.emit('uncaughtException', new Error('boom'));
    expect(exits).toEqual([]);
    timers[0]!();
    expect(exits).toEqual([LAST_RESORT_EXIT_CODE]);
  });
});

describe('the per-connection command limit', () => {
  it('allows a burst, refuses beyond it, and refills with time', () => {
    let now = 0;
    const limit = new RateLimit(10, 20, () => now);
    const burst = Array.from({ length: 25 }, () => limit.take());
    expect(burst.filter(Boolean)).toHaveLength(20);
    now += 500;
    expect(Array.from({ length: 6 }, () => limit.take()).filter(Boolean)).toHaveLength(5);
  });
});

describe('whether the headless host can open a browser', () => {
  it('never over SSH, on Linux only with a display, and says which', async () => {
    const { browserUnavailableReason } = await import('../../main/headless/open-browser');
    expect(browserUnavailableReason('linux', { SSH_CONNECTION: '1 2 3 4', DISPLAY: ':0' })).toContain('SSH');
    expect(browserUnavailableReason('linux', {})).toContain('no display');
    expect(browserUnavailableReason('linux', { WAYLAND_DISPLAY: 'wayland-0' })).toBeNull();
    expect(browserUnavailableReason('darwin', {})).toBeNull();
  });
});
