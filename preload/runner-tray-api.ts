import {
  COMMAND_NAMES,
  EVENT_CHANNEL,
  HostEventBatchSchema,
  isEventName,
  parseHostEvent,
  type CommandName,
  type EventName,
  type EventPayload,
  type RunnerTrayApi,
} from '../shared/contract';
import { TransportErrorCode, type Result } from '../shared/result';

/**
 * The part of ipcRenderer the API uses. The API is built from it (rather than importing
 * electron) so tests/shell/preload.test.ts can check the exposed surface under Node.
 */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

type CommandMethods = { readonly [K in CommandName]: RunnerTrayApi[K] };

/**
 * What preload exposes as `window.runnerTray`: exactly one method per contract command
 * and `subscribe`, nothing else. Never ipcRenderer itself, never a generic `invoke` or
 * `on(channel)`: the page can reach only the channels the contract names.
 */
export function createRunnerTrayApi(ipc: IpcRendererLike) {
  const invoker =
    (name: CommandName) =>
    (input?: unknown): Promise<Result<unknown>> =>
      // Main answers with data; a rejection means no answer came at all (main restarting,
      // handler missing). Electron's message for it would leak internals, so say it plainly.
      (ipc.invoke(name, input) as Promise<Result<unknown>>).catch(() => ({
        ok: false as const,
        error: { code: TransportErrorCode.disconnected, message: `${name}: the app did not answer; try again` },
      }));

  // One entry per contract command, built from the contract so that adding a command
  // needs no change here; `satisfies` below still checks every name and signature.
  const commandMethods = Object.fromEntries(COMMAND_NAMES.map((name) => [name, invoker(name)])) as unknown as CommandMethods;

  function subscribe<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
    if (!isEventName(event) || typeof listener !== 'function') return () => {};
    const onBatch = (_event: unknown, raw: unknown) => {
      // The Electron event object (with its sender) never reaches the page: only payloads
      // of the asked-for event, each one checked against the contract, are passed on.
      const batch = HostEventBatchSchema.safeParse(raw);
      if (!batch.success) return;
      for (const item of batch.data) {
        if (item.event !== event) continue;
        const parsed = parseHostEvent(item);
        if (parsed) listener(parsed.payload as EventPayload<E>);
      }
    };
    ipc.on(EVENT_CHANNEL, onBatch);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      ipc.removeListener(EVENT_CHANNEL, onBatch);
    };
  }

  return Object.freeze({ ...commandMethods, subscribe }) satisfies RunnerTrayApi;
}
