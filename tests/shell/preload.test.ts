import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { COMMAND_NAMES, EVENT_CHANNEL } from '../../shared/contract';
import { createRunnerTrayApi, type IpcRendererLike } from '../../preload/runner-tray-api';

type BatchListener = (event: unknown, ...args: unknown[]) => void;

/** A fake ipcRenderer: records invokes, and lets a test deliver what main would send. */
function fakeIpcRenderer(answer: unknown = { ok: true, value: 'answer' }) {
  const listeners = new Map<string, Set<BatchListener>>();
  const invoke = vi.fn(async (_channel: string, ..._args: unknown[]) => answer);
  const ipc: IpcRendererLike = {
    invoke,
    on: (channel, listener) => {
      listeners.set(channel, (listeners.get(channel) ?? new Set()).add(listener));
    },
    removeListener: (channel, listener) => {
      listeners.get(channel)?.delete(listener);
    },
  };
  const electronEvent = { sender: { send() {} }, senderId: 0, ports: [] };
  const deliver = (channel: string, payload: unknown) => listeners.get(channel)?.forEach((l) => l(electronEvent, payload));
  const count = (channel: string) => listeners.get(channel)?.size ?? 0;
  return { ipc, invoke, deliver, count, electronEvent };
}

const idle = { state: 'idle', reason: 'Waiting for work.' };

describe('preload: window.runnerTray', () => {
  it('has exactly one method per contract command, plus subscribe', () => {
    const api = createRunnerTrayApi(fakeIpcRenderer().ipc);
    expect(Object.keys(api).sort()).toEqual([...COMMAND_NAMES, 'subscribe'].sort());
    for (const value of Object.values(api)) expect(typeof value).toBe('function');
    expect(Object.isFrozen(api)).toBe(true);
    expect(api).not.toHaveProperty('invoke');
    expect(api).not.toHaveProperty('ipcRenderer');
  });

  it('invokes each command on its own channel with the input as given', async () => {
    const { ipc, invoke } = fakeIpcRenderer();
    const api = createRunnerTrayApi(ipc);
    for (const name of COMMAND_NAMES) {
      const method = api[name] as (input?: unknown) => Promise<unknown>;
      await expect(method({ probe: name })).resolves.toEqual({ ok: true, value: 'answer' });
      expect(invoke).toHaveBeenLastCalledWith(name, { probe: name });
    }
    await api['runner:status']();
    expect(invoke).toHaveBeenLastCalledWith('runner:status', undefined);
  });

  it('turns a missing answer from main into a result, not a rejection', async () => {
    const { ipc } = fakeIpcRenderer();
    ipc.invoke = () => Promise.reject(new Error("Error invoking remote method 'runner:status': internals"));
    const answer = await createRunnerTrayApi(ipc)['runner:status']();
    expect(answer).toEqual({ ok: false, error: { code: 'disconnected', message: expect.not.stringContaining('internals') } });
  });

  it('subscribe passes only the payloads of the asked-for event, never the Electron event', () => {
    const { ipc, deliver, electronEvent } = fakeIpcRenderer();
    const api = createRunnerTrayApi(ipc);
    const listener = vi.fn();
    api.subscribe('runner:status', listener);
    deliver(EVENT_CHANNEL, [
      { event: 'log:entries', payload: [] },
      { event: 'runner:status', payload: idle },
    ]);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(listener.mock.calls[0]).toEqual([idle]);
    expect(listener.mock.calls.flat()).not.toContain(electronEvent);
  });

  it('drops malformed batches and payloads that do not fit the contract', () => {
    const { ipc, deliver } = fakeIpcRenderer();
    const listener = vi.fn();
    createRunnerTrayApi(ipc).subscribe('runner:status', listener);
    deliver(EVENT_CHANNEL, 'not a batch');
    deliver(EVENT_CHANNEL, [{ no: 'event' }]);
    deliver(EVENT_CHANNEL, [{ event: 'runner:status', payload: { state: 'exploded' } }]);
    deliver(EVENT_CHANNEL, [{ event: 'runner:status', payload: { state: 'working', reason: 'x', active: -1, limit: 0 } }]);
    deliver(EVENT_CHANNEL, [{ event: 'runner:status' }]);
    deliver('some:other-channel', [{ event: 'runner:status', payload: idle }]);
    expect(listener).not.toHaveBeenCalled();
    deliver(EVENT_CHANNEL, [
      { event: 'runner:status', payload: { state: 'exploded' } },
      { event: 'runner:status', payload: idle },
    ]);
    expect(listener).toHaveBeenCalledExactlyOnceWith(idle);
  });

  it('returns an unsubscribe that removes the listener (and is safe to call twice)', () => {
    const { ipc, deliver, count } = fakeIpcRenderer();
    const api = createRunnerTrayApi(ipc);
    const listener = vi.fn();
    const off = api.subscribe('runner:status', listener);
    expect(count(EVENT_CHANNEL)).toBe(1);
    off();
    off();
    expect(count(EVENT_CHANNEL)).toBe(0);
    deliver(EVENT_CHANNEL, [{ event: 'runner:status', payload: idle }]);
    expect(listener).not.toHaveBeenCalled();
  });

  it('ignores subscriptions to events the contract does not have', () => {
    const { ipc, count } = fakeIpcRenderer();
    const api = createRunnerTrayApi(ipc) as unknown as { subscribe: (e: string, l: unknown) => () => void };
    api.subscribe('host:secrets', () => {})();
    api.subscribe('runner:status', 'not a function');
    expect(count(EVENT_CHANNEL)).toBe(0);
  });

  it('exposes it under window.runnerTray and never exposes ipcRenderer', () => {
    const source = readFileSync(new URL('../../preload/preload.ts', import.meta.url), 'utf8');
    const exposures = [...source.matchAll(/exposeInMainWorld\(\s*'([^']+)'\s*,\s*([^)]*)\)/g)].map((m) => [m[1], m[2]]);
    expect(exposures).toEqual([['runnerTray', 'api']]);
    expect(source).toMatch(/const api = createRunnerTrayApi\(ipcRenderer\);/);
  });
});
