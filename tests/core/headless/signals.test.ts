import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { HostSignals, takeSignal } from '../../../main/headless/signals';

/** A process stand-in that records how many listeners a signal has after every change (Node closes the watch at 0). */
function fakeProcess() {
  const emitter = new EventEmitter();
  const counts: number[] = [];
  const proc = {
    on: (event: string, listener: (...args: unknown[]) => void) => {
      emitter.on(event, listener);
      counts.push(emitter.listenerCount(event));
      return proc;
    },
    listeners: (event: string) => emitter.listeners(event),
    removeListener: (event: string, listener: (...args: unknown[]) => void) => {
      emitter.removeListener(event, listener);
      counts.push(emitter.listenerCount(event));
      return proc;
    },
    emit: (event: string) => emitter.emit(event, event),
  };
  return { proc: proc as unknown as NodeJS.Process & { emit(event: string): boolean }, counts, emitter };
}

describe('taking a signal from the libraries that hooked it', () => {
  it('leaves one listener, ours, and the signal is never without one on the way', () => {
    const { proc, counts, emitter } = fakeProcess();
    const library = vi.fn();
    emitter.on('SIGTERM', library);
    emitter.on('SIGTERM', library);
    const ours = vi.fn();
    takeSignal(proc, 'SIGTERM', ours);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(1);
    expect(emitter.listenerCount('SIGTERM')).toBe(1);
    proc.emit('SIGTERM');
    expect(ours).toHaveBeenCalledWith('SIGTERM');
    expect(library).not.toHaveBeenCalled();
  });

  it('a signal while the host starts goes to the early stop; once it serves, to the quit policy', () => {
    const { proc } = fakeProcess();
    const early = vi.fn();
    const signals = new HostSignals(proc, early);
    proc.emit('SIGTERM');
    expect(early).toHaveBeenCalledWith('SIGTERM');
    const withCore = vi.fn();
    signals.whileStarting(withCore);
    proc.emit('SIGINT');
    expect(withCore).toHaveBeenCalledWith('SIGINT');
    const stop = vi.fn();
    signals.handle(stop);
    proc.emit('SIGTERM');
    expect(stop).toHaveBeenCalledWith('SIGTERM');
    expect(early).toHaveBeenCalledTimes(1);
    expect(withCore).toHaveBeenCalledTimes(1);
  });
});
