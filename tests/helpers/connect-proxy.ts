import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** A tiny forward proxy on loopback: CONNECT tunnels and absolute-form HTTP requests, each counted by target. */
export interface LoopbackProxy {
  readonly url: string;
  /** `host:port` of every request or tunnel it carried, in order. */
  readonly seen: string[];
  close(): Promise<void>;
}

export async function startLoopbackProxy(): Promise<LoopbackProxy> {
  const seen: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const target = new URL(req.url ?? '/');
    seen.push(target.host);
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: `${target.pathname}${target.search}`, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    seen.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [upstream, client]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    async close() {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
