// The control-plane client's default transport: one request on node:http/https, answering
// with the two things JsonHttpClient reads (the status and the body's text).
//
// Not the global fetch: Node 20 loads undici (and its llhttp WebAssembly parser) on the
// first fetch, which cost the headless host ~13 MB of resident memory and ~35 ms before its
// first heartbeat. node:http's own agent keeps connections alive as undici's does.
// node:https (and TLS) and node:zlib are loaded when first needed: a loopback control
// plane over plain HTTP never needs them.
import http from 'node:http';
import type { Readable } from 'node:stream';
import type { FetchLike, FetchResponse } from './http-json';

type Init = Parameters<FetchLike>[1];

/** JsonHttpClient's headers are a plain record (a `Headers` object would load undici). */
function headerRecord(headers: Init['headers']): Record<string, string> {
  if (!headers) return {};
  if (Array.isArray(headers)) return Object.fromEntries(headers.map(([k, v]) => [k, v] as [string, string]));
  return { ...(headers as Record<string, string>) };
}

async function decoded(response: http.IncomingMessage): Promise<Readable> {
  const encoding = response.headers['content-encoding'];
  if (encoding === undefined || encoding === 'identity') return response;
  const zlib = await import('node:zlib');
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return response.pipe(zlib.createGunzip());
    case 'deflate':
      return response.pipe(zlib.createInflate());
    case 'br':
      return response.pipe(zlib.createBrotliDecompress());
    default:
      return response;
  }
}

/** `fetch` for JSON exchanges: string bodies, no redirects followed (a 3xx fails as fetch's `redirect: 'error'` does), aborted by `init.signal`. */
export const nodeFetch: FetchLike = async (input, init) => {
  const url = new URL(input);
  const transport = url.protocol === 'https:' ? (await import('node:https')).default : http;
  return new Promise<FetchResponse>((resolve, reject) => {
    const signal = init.signal ?? null;
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const body = typeof init.body === 'string' ? init.body : undefined;
    const headers = headerRecord(init.headers);
    // node:http frames a body of GET/DELETE neither by length nor by chunks: a strict server
    // reads the body as the start of the next request and answers 400.
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const request = transport.request(url, { method: init.method ?? 'GET', headers });
    let settled = false;
    const onAbort = () => request.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    request.on('error', (error) => {
      done();
      if (!settled) reject(error);
    });
    request.once('response', (response) => {
      settled = true;
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location) {
        response.resume();
        done();
        reject(new Error(`unexpected redirect (${status})`));
        return;
      }
      // The body is read now, whether or not the caller asks for it, so the connection goes back to the agent.
      const text = new Promise<string>((resolveText, rejectText) => {
        const chunks: Buffer[] = [];
        const dropped = (error: Error) => {
          done();
          rejectText(error);
        };
        response.once('aborted', () => dropped(new Error('the connection dropped while reading the answer')));
        response.on('error', dropped);
        void decoded(response).then((body) => {
          body.on('data', (chunk: Buffer) => chunks.push(chunk));
          body.once('end', () => {
            done();
            resolveText(Buffer.concat(chunks).toString('utf8'));
          });
          body.once('error', dropped);
        }, dropped);
      });
      text.catch(() => undefined);
      resolve({ status, text: () => text });
    });
    request.end(body);
  });
};
