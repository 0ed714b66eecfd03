import type { CommandName, HostEvent } from '../../../shared/contract';
import { firstViewRequests, requestKey } from '../../../shared/first-view';
import { TransportErrorCode, type Result } from '../../../shared/result';
import { WINDOW_KEY_HEADER, WINDOW_KEY_PROTOCOL_PREFIX, WINDOW_KEY_STORAGE, WINDOW_PROTOCOL } from '../../../shared/window-session';
import type { Bridge, ConnectionState } from './types';

const MIN_DELAY_MS = 500;
const MAX_DELAY_MS = 10_000;
/** Pushed first-view answers nobody asked for this long after the socket opened are dropped (a later ask goes to the host). */
const FIRST_ANSWERS_TTL_MS = 5_000;
/** How long the close probe waits for the host's answer before the host counts as unreachable. */
const PROBE_TIMEOUT_MS = 3_000;

/** What a closed socket means, found by asking the page's own origin (the session cookie goes with it). */
export type CloseCause = 'unreachable' | 'session-refused' | 'other';

/**
 * Headless: the page holds no token. The address the host printed was traded, before
 * this page loaded, for a session cookie (HttpOnly, so no script sees it) and a window
 * key the handoff page left in this origin's localStorage (another port's page cannot
 * read it, though it gets the cookie). The WebSocket offers the key as a subprotocol.
 * When the socket closes, a HEAD of the page with the key tells a host that is gone (no
 * answer) from one that no longer knows this window (401: it restarted).
 */
export async function probeCloseCause(fetchFn: typeof fetch = fetch, windowKey: string | null = null): Promise<CloseCause> {
  // A host that is frozen, or a connection the browser still thinks alive, answers nothing:
  // the window says so within the bound instead of showing "Connected" while it waits.
  const abort = new AbortController();
  const bound = setTimeout(() => abort.abort(), PROBE_TIMEOUT_MS);
  try {
    const res = await fetchFn('/', {
      method: 'HEAD',
      cache: 'no-store',
      credentials: 'same-origin',
      redirect: 'manual',
      signal: abort.signal,
      ...(windowKey ? { headers: { [WINDOW_KEY_HEADER]: windowKey } } : {}),
    });
    return res.status === 401 ? 'session-refused' : 'other';
  } catch {
    return 'unreachable';
  } finally {
    clearTimeout(bound);
  }
}

export const RESTARTED_REASON = 'This host restarted. Open the new address printed in its terminal.';
export const NO_WINDOW_REASON =
  'This browser holds no window key for this host: open an address the host printed (each opens one browser, once). Ask the host for a new one (kill -USR2 <pid>, or restart it).';

/** This browser's window key for this host, left by an address's handoff page; null when it has none. */
export function storedWindowKey(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): string | null {
  try {
    return storage?.getItem(WINDOW_KEY_STORAGE) || null;
  } catch {
    return null;
  }
}

type Pending = { name: CommandName; resolve: (result: Result<never>) => void };

/**
 * `firstProfile`: the profile the window shows; when given, the socket's address names it
 * and the host pushes the answers the window asks for first (shared/first-view.ts): an
 * ask for one of them takes the pushed answer, or waits for it, instead of going out.
 */
export function createWsBridge(
  wsUrl: string,
  probe: () => Promise<CloseCause> = probeCloseCause,
  firstProfile?: () => string,
  /** The tab's window key (a page); null: a page without one, refused at once; undefined: no key is offered. */
  windowKey?: string | null,
): Bridge {
  const signals = hostSignals();
  const { setConnection } = signals;
  const asks = pendingAsks();
  const first = firstAnswers();
  let socket: WebSocket | null = null;
  let attempt = 0;
  let opened = false;
  let started = false;

  function failPending(message: string) {
    const failure = { ok: false, error: { code: TransportErrorCode.disconnected, message } } as Result<never>;
    asks.fail(failure);
    first.fail(failure);
  }

  function open() {
    if (attempt === 0) setConnection({ state: 'connecting' });
    const profile = firstProfile?.() ?? null;
    if (profile !== null) first.expect(profile);
    const address = profile === null ? wsUrl : `${wsUrl}?profile=${encodeURIComponent(profile)}`;
    const ws = windowKey ? new WebSocket(address, [WINDOW_PROTOCOL, `${WINDOW_KEY_PROTOCOL_PREFIX}${windowKey}`]) : new WebSocket(address);
    socket = ws;
    ws.onopen = () => {
      attempt = 0;
      opened = true;
      first.opened();
      setConnection({ state: 'open' });
    };
    ws.onmessage = (event) => onFrame(event.data, signals.emitEvents, first, asks);
    ws.onclose = () => {
      socket = null;
      failPending('The connection to the host closed.');
      void probe().then(retryOrGiveUp);
    };
  }

  function retryOrGiveUp(cause: CloseCause) {
    // This page was served under a session, so a refusal now means the host forgot it: it
    // restarted (every session is new). No retry can succeed; say so once and stop.
    if (cause === 'session-refused') {
      setConnection({ state: 'refused', reason: RESTARTED_REASON, restarted: true });
      return;
    }
    attempt += 1;
    const delay = Math.min(MAX_DELAY_MS, MIN_DELAY_MS * 2 ** (attempt - 1)) * (0.8 + Math.random() * 0.4);
    setConnection({ state: 'reconnecting', retryAt: Date.now() + delay, attempt, reason: reconnectReason(cause, opened) });
    setTimeout(open, delay);
  }

  return {
    transport: 'websocket',
    invoke(name, input) {
      return new Promise((resolve) => {
        if (!socket || socket.readyState !== WebSocket.OPEN) {
          resolve({ ok: false, error: { code: TransportErrorCode.disconnected, message: 'Not connected to the host.' } });
          return;
        }
        if (first.take(requestKey(name, input), resolve as (r: Result<never>) => void)) return;
        const id = asks.add(name, resolve as (r: Result<never>) => void);
        socket.send(JSON.stringify({ id, command: name, input: input ?? {} }));
      });
    },
    onEvents: signals.onEvents,
    onConnection: signals.onConnection,
    connect() {
      if (started) return;
      started = true;
      // No key, no window: the host would refuse every try, so say why once.
      if (windowKey === null) return setConnection({ state: 'refused', reason: NO_WINDOW_REASON });
      open();
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The answer as the host sent it when it has a result's shape, else an error saying it does not fit. */
function checked(name: string, result: unknown): Result<never> {
  const fits =
    isRecord(result) && (result.ok === true ? 'value' in result : result.ok === false && isRecord(result.error) && typeof result.error.message === 'string');
  return (
    fits ? result : { ok: false, error: { code: TransportErrorCode.invalidInput, message: `${name}: the host sent an answer that does not fit the contract` } }
  ) as Result<never>;
}

/** A frame from the socket: a JSON object, or null for anything else. */
function parseFrame(data: unknown): Record<string, unknown> | null {
  if (typeof data !== 'string') return null;
  let frame: unknown;
  try {
    frame = JSON.parse(data);
  } catch {
    return null;
  }
  return isRecord(frame) ? frame : null;
}

function reconnectReason(cause: CloseCause, opened: boolean): string {
  return cause === 'unreachable'
    ? opened
      ? 'Lost the connection to the host.'
      : 'Cannot reach the host. Is it running, and is this the address it printed?'
    : 'The host closed the connection.';
}

/** The answers the host pushes for the first view: kept for an ask, or handed to the asks waiting for them, by request key. */
function firstAnswers() {
  /** Pushed answers not asked for yet, and the asks waiting for a pushed answer, by request key. */
  const pushed = new Map<string, Result<never>>();
  const awaited = new Map<string, ((result: Result<never>) => void)[]>();
  /** Pushed answers are kept for an ask until then (ms since the epoch). */
  let keepPushedUntil = 0;
  return {
    /** Each pushed answer is awaited (with nobody waiting yet) until it lands. */
    expect(profile: string) {
      for (const r of firstViewRequests(profile)) awaited.set(requestKey(r.command, r.input), []);
    },
    opened() {
      keepPushedUntil = Date.now() + FIRST_ANSWERS_TTL_MS;
    },
    onPushed(frame: Record<string, unknown>) {
      if (typeof frame.command !== 'string') return;
      const key = requestKey(frame.command, frame.input);
      if (!awaited.has(key)) return;
      const result = checked(frame.command, frame.result);
      const waiting = awaited.get(key)!;
      awaited.delete(key);
      if (waiting.length > 0) waiting.forEach((resolve) => resolve(result));
      else if (Date.now() <= keepPushedUntil) pushed.set(key, result);
    },
    /** True when the ask is answered by a pushed answer, or waits for one, and so does not go out. */
    take(key: string, resolve: (result: Result<never>) => void): boolean {
      const answer = pushed.get(key);
      pushed.delete(key);
      if (answer && Date.now() <= keepPushedUntil) {
        resolve(answer);
        return true;
      }
      const waiting = awaited.get(key);
      if (!waiting) return false;
      waiting.push(resolve);
      return true;
    },
    fail(failure: Result<never>) {
      for (const waiting of awaited.values()) for (const resolve of waiting) resolve(failure);
      awaited.clear();
      pushed.clear();
    },
  };
}

// The host checks every command's input against the contract and answers with its typed
// handlers' values; the page checks only the framing and trusts the shapes (no schemas
// here: they would be most of the page's script, and parsing a bulk answer such as a
// history page twice costs a long task). Events with a name the page does not know are
// ignored by the store.
function onFrame(data: unknown, emitEvents: (events: HostEvent[]) => void, first: ReturnType<typeof firstAnswers>, asks: ReturnType<typeof pendingAsks>) {
  const frame = parseFrame(data);
  if (!frame) return;
  if (frame.type === 'events') {
    if (!Array.isArray(frame.events)) return;
    const events = frame.events.filter((e): e is HostEvent => isRecord(e) && typeof e.event === 'string' && 'payload' in e);
    if (events.length) emitEvents(events);
    return;
  }
  if (frame.type === 'first') return first.onPushed(frame);
  if (frame.type !== 'result' || typeof frame.id !== 'number') return;
  asks.settle(frame.id, frame.result);
}

/** The commands sent and not answered yet, by id. */
function pendingAsks() {
  const pending = new Map<number, Pending>();
  let nextId = 1;
  return {
    add(name: CommandName, resolve: Pending['resolve']): number {
      const id = nextId++;
      pending.set(id, { name, resolve });
      return id;
    },
    settle(id: number, result: unknown) {
      const waiting = pending.get(id);
      if (!waiting) return;
      pending.delete(id);
      waiting.resolve(checked(waiting.name, result));
    },
    fail(failure: Result<never>) {
      for (const [id, p] of pending) {
        pending.delete(id);
        p.resolve(failure);
      }
    },
  };
}

/** The window's listeners to host events and to the connection state, and the last state. */
function hostSignals() {
  const eventListeners = new Set<(events: HostEvent[]) => void>();
  const connectionListeners = new Set<(state: ConnectionState) => void>();
  let connection: ConnectionState | null = null;
  return {
    emitEvents: (events: HostEvent[]) => eventListeners.forEach((l) => l(events)),
    setConnection: (state: ConnectionState) => {
      connection = state;
      connectionListeners.forEach((l) => l(state));
    },
    onEvents: (listener: (events: HostEvent[]) => void) => {
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },
    onConnection: (listener: (state: ConnectionState) => void) => {
      connectionListeners.add(listener);
      // A window that started connecting before it listened learns where the socket is.
      if (connection) listener(connection);
      return () => connectionListeners.delete(listener);
    },
  };
}
