// What `npm run demo` waits for while it starts: each wait is for the thing itself (a line a
// child prints once it listens, a route that answers), never a fixed sleep, and each has a
// bound that ends it with a sentence saying what did not happen, not a stack trace. On a
// busy two-core machine the emulator took up to 8.5 s to listen; the bound is far above that.
export class DemoWaitError extends Error {}

/**
 * Resolves with the first match of `pattern` in a line `child` prints on stdout (or in one of
 * `seen`, lines it printed before the call). Rejects when the child exits first or when
 * `timeoutMs` passes, with `what` in the message.
 * @param {import('node:child_process').ChildProcess} child
 * @param {RegExp} pattern
 * @param {{ what: string, timeoutMs: number, seen?: string[] }} options
 * @returns {Promise<RegExpExecArray>}
 */
export function waitForLine(child, pattern, { what, timeoutMs, seen = [] }) {
  const earlier = seen.map((line) => pattern.exec(line)).find(Boolean);
  if (earlier) return Promise.resolve(earlier);
  return new Promise((resolve, reject) => {
    // A 'data' listener of its own, not readline: closing a readline interface pauses the
    // stream, and the demo's relay of the child's output reads the same one.
    let partial = '';
    const onData = (chunk) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const match = pattern.exec(line);
        if (match) return done(resolve, match);
      }
    };
    const done = (fn, value) => {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      fn(value);
    };
    const onExit = (code, signal) => done(reject, new DemoWaitError(`${what}: it stopped (${signal ?? `exit ${code}`}) before it was ready.`));
    const timer = setTimeout(() => done(reject, new DemoWaitError(`${what}: not ready after ${timeoutMs / 1000} s. ${slowHint}`)), timeoutMs);
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * Resolves once `url` answers 2xx; retries a refused or failing request (the server may be
 * between its listen and its first answer) until `timeoutMs` has passed since the call.
 * @param {string} url
 * @param {{ what: string, timeoutMs: number, fetchImpl?: typeof fetch }} options
 */
export async function waitForHealth(url, { what, timeoutMs, fetchImpl = fetch }) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    const left = deadline - Date.now();
    if (left <= 0) throw new DemoWaitError(`${what}: ${url} did not answer within ${timeoutMs / 1000} s (last: ${last}). ${slowHint}`);
    try {
      const res = await fetchImpl(url, { signal: AbortSignal.timeout(Math.max(1, left)) });
      if (res.ok) return;
      last = `HTTP ${res.status}`;
    } catch (error) {
      last = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, Math.max(0, deadline - Date.now()))));
  }
}

const slowHint = 'The machine may be very busy: try again, or give it longer with --start-timeout <seconds>.';
