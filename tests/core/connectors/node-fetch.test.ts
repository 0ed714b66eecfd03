import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonHttpClient } from '../../../main/core/connectors/http-json';
import { nodeFetch } from '../../../main/core/connectors/node-fetch';

let server: Server | null = null;

/** A loopback server answering with `handle`; resolves to its base URL. */
async function serve(handle: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => handle(req, body, res));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = null;
});

describe('nodeFetch (the control-plane client transport)', () => {
  it('sends the method, headers and body, and answers with the status and text', async () => {
    const seen: Array<{ method: string | undefined; url: string | undefined; auth: string | undefined; type: string | undefined; body: string }> = [];
    const base = await serve((req, body, res) => {
      seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, type: req.headers['content-type'], body });
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    const response = await nodeFetch(`${base}/api/x?y=1`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(response.status).toBe(201);
    expect(await response.text()).toBe('{"ok":true}');
    expect(seen).toEqual([{ method: 'POST', url: '/api/x?y=1', auth: 'Bearer t', type: 'application/json', body: '{"a":1}' }]);
  });

  it('frames a DELETE body (Content-Length) so a strict HTTP parser accepts it', async () => {
    const seen: Array<{ method: string | undefined; length: string | undefined; chunked: string | undefined; body: string }> = [];
    server = createServer({ requireHostHeader: true, insecureHTTPParser: false }, (req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        seen.push({ method: req.method, length: req.headers['content-length'], chunked: req.headers['transfer-encoding'], body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    const client = new JsonHttpClient(`http://127.0.0.1:${address.port}`);
    const answer = await client.request({ method: 'DELETE', path: '/me/executor-instances/i1', body: {}, timeoutMs: 10_000 });
    expect(answer).toEqual({ status: 200, body: {} });
    // A second exchange on the same kept-alive connection: nothing of the first is left over.
    expect((await client.request({ method: 'GET', path: '/me', timeoutMs: 10_000 })).status).toBe(200);
    expect(seen).toEqual([
      { method: 'DELETE', length: '2', chunked: undefined, body: '{}' },
      { method: 'GET', length: undefined, chunked: undefined, body: '' },
    ]);
  });

  it('decodes a gzip answer', async () => {
    const base = await serve((_req, _body, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('{"zipped":1}')));
    expect(await (await nodeFetch(base, { method: 'GET' })).text()).toBe('{"zipped":1}');
  });

  it('refuses a redirect instead of following it', async () => {
    let hits = 0;
    const base = await serve((_req, _body, res) => {
      hits++;
      res.writeHead(302, { location: '/elsewhere' }).end();
    });
    await expect(nodeFetch(`${base}/here`, { method: 'GET' })).rejects.toThrow(/redirect/);
    expect(hits).toBe(1);
  });

  it('is canceled by its signal while the server holds the request', async () => {
    let held!: () => void;
    const arrived = new Promise<void>((resolve) => (held = resolve));
    const base = await serve(() => held());
    const controller = new AbortController();
    const pending = nodeFetch(base, { method: 'POST', body: '{}', signal: controller.signal });
    await arrived;
    controller.abort(new Error('canceled by test'));
    await expect(pending).rejects.toThrow('canceled by test');
  });

  it('is what JsonHttpClient uses by default: a timeout and a refused connection are told apart', async () => {
    const base = await serve(() => undefined); // never answers
    const client = new JsonHttpClient(base);
    await expect(client.request({ method: 'GET', path: '/slow', timeoutMs: 50 })).rejects.toMatchObject({ kind: 'timeout' });
    server!.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    server = null;
    await expect(client.request({ method: 'GET', path: '/gone', timeoutMs: 5_000 })).rejects.toMatchObject({
      kind: 'network',
      message: expect.stringMatching(/ECONNREFUSED/),
    });
  });
});
