import { mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configBaseUrls, egressAllowlist, loopbackPorts, parseEgressHost } from '../../../../main/core/exec/isolation/egress/allowlist';
import { proxySocketPath } from '../../../../main/core/exec/isolation/egress/egress-plan';
import { startEgressProxy, type EgressProxy } from '../../../../main/core/exec/isolation/egress/proxy';
import { testLogging } from '../../../helpers/test-logger';

describe('the egress allowlist', () => {
  it("holds the runtime's model hosts, its base URLs, the turn's URLs and the operator's hosts, loopback as one origin", () => {
    const allow = egressAllowlist({
      runtime: 'claude',
      env: { ANTHROPIC_BASE_URL: 'http://localhost:8123/v1', OPENAI_BASE_URL: 'not a url' },
      urls: ['http://127.0.0.1:7457/mcp', 'https://forge.example/mcp', 'file:///etc/passwd'],
      hosts: ['registry.npmjs.org', 'pypi.org:8443', 'bad host'],
    });
    const keys = allow.map((t) => `${t.host}:${t.port}`);
    expect(keys).toEqual(
      expect.arrayContaining(['api.anthropic.com:443', '127.0.0.1:8123', '127.0.0.1:7457', 'forge.example:443', 'registry.npmjs.org:443', 'pypi.org:8443']),
    );
    expect(keys).not.toContain('api.openai.com:443');
    expect(keys.some((k) => k.includes('passwd') || k.includes('bad'))).toBe(false);
    expect(loopbackPorts(allow)).toEqual([7457, 8123]);
  });

  it('takes host[:port] only: no scheme, path, user, wildcard or port out of range', () => {
    expect(parseEgressHost('Example.COM')).toEqual({ host: 'example.com', port: 443 });
    expect(parseEgressHost('10.0.0.2:8080')).toEqual({ host: '10.0.0.2', port: 8080 });
    for (const bad of ['https://example.com', 'example.com/path', 'user@example.com', '*.example.com', 'example.com:0', 'example.com:70000', '']) {
      expect(parseEgressHost(bad), bad).toBeNull();
    }
  });

  it("reads a generated codex config's provider base_url", () => {
    expect(configBaseUrls('model = "x"\n[model_providers.stub]\nbase_url = "http://127.0.0.1:9911/v1"\n')).toEqual(['http://127.0.0.1:9911/v1']);
  });

  it('puts the socket in the turn folder, or under a private temp folder when that path is too long for a socket', () => {
    expect(proxySocketPath('/data/turns/turn-1', '/work/tree')).toMatch(/^\/data\/turns\/turn-1\/egress\/[0-9a-f]{12}\.sock$/);
    expect(proxySocketPath('/data/turns/turn-1', '/a')).not.toBe(proxySocketPath('/data/turns/turn-1', '/b'));
    const long = proxySocketPath(`/${'x'.repeat(120)}`, '/work/tree');
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(100);
    expect(long.startsWith(tmpdir())).toBe(true);
  });
});

describe('the egress proxy', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()?.();
  });

  async function upstream(text: string): Promise<number> {
    const server = http.createServer((req, res) => res.end(`${text} ${req.method} ${req.url}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    cleanups.push(() => void server.close());
    return (server.address() as net.AddressInfo).port;
  }

  async function proxyOn(allowPorts: number[]): Promise<{ proxy: EgressProxy; logging: ReturnType<typeof testLogging>; dir: string }> {
    const dir = mkdtempSync(path.join(tmpdir(), 'rt-egress-'));
    const logging = testLogging();
    const proxy = await startEgressProxy({
      listen: { socketPath: path.join(dir, 'egress', 'p.sock') },
      allow: allowPorts.map((port) => ({ host: '127.0.0.1', port })),
      log: logging.log,
    });
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    cleanups.push(() => proxy.close());
    return { proxy, logging, dir };
  }

  /** A raw request over the proxy's socket: the answer once it matches `until` (or the peer closed). */
  function rawAsk(socketPath: string, text: string, until: RegExp = /^HTTP\/1\.1 \d{3}[^\r]*\r\n/): Promise<string> {
    return new Promise((resolve) => {
      const socket = net.connect(socketPath);
      let answer = '';
      socket.on('data', (chunk) => {
        answer += chunk.toString('latin1');
        if (until.test(answer)) socket.destroy();
      });
      socket.on('close', () => resolve(answer));
      socket.on('error', () => resolve(answer));
      socket.write(text);
    });
  }

  it('listens on a 0600 socket, tunnels CONNECT to an allowed target and answers 403 (logging host:port only) to the rest', async () => {
    const allowed = await upstream('allowed');
    const other = await upstream('other');
    const { proxy, logging } = await proxyOn([allowed]);
    expect(statSync(proxy.address).mode & 0o777).toBe(0o600);

    const tunneled = await rawAsk(
      proxy.address,
      `CONNECT 127.0.0.1:${allowed} HTTP/1.1\r\nhost: x\r\n\r\nGET /hi HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`,
      /allowed GET \/hi/,
    );
    expect(tunneled).toMatch(/^HTTP\/1\.1 200 Connection Established/);
    expect(tunneled).toContain('allowed GET /hi');

    // localhost is the same origin as 127.0.0.1; another port is another origin.
    expect(await rawAsk(proxy.address, `CONNECT localhost:${allowed} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200/);
    expect(await rawAsk(proxy.address, `CONNECT 127.0.0.1:${other} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/);
    expect(await rawAsk(proxy.address, 'CONNECT example.com:443 HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 403/);
    expect(await rawAsk(proxy.address, 'CONNECT nonsense HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 403/);
    const denied = logging.entries.filter((e) => e.msg === 'egress denied').map((e) => e.data?.target);
    expect(denied).toEqual([`127.0.0.1:${other}`, 'example.com:443', 'unparsable']);
  });

  it('forwards an absolute http:// request to an allowed origin (no path, query or header is logged) and refuses others', async () => {
    const allowed = await upstream('plain');
    const other = await upstream('other');
    const { proxy, logging } = await proxyOn([allowed]);
    const ok = await rawAsk(
      proxy.address,
      `GET http://127.0.0.1:${allowed}/v1/x?key=s3cret HTTP/1.1\r\nhost: 127.0.0.1:${allowed}\r\nconnection: close\r\n\r\n`,
      /plain GET \/v1\/x\?key=s3cret/,
    );
    expect(ok).toMatch(/^HTTP\/1\.1 200/);
    expect(ok).toContain('plain GET /v1/x?key=s3cret');
    const refused = await rawAsk(proxy.address, `GET http://127.0.0.1:${other}/?key=s3cret HTTP/1.1\r\nhost: x\r\n\r\n`);
    expect(refused).toMatch(/^HTTP\/1\.1 403/);
    expect(await rawAsk(proxy.address, 'GET /relative HTTP/1.1\r\nhost: x\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect(JSON.stringify(logging.entries)).not.toContain('s3cret');
  });

  it('a broken peer ends only its own connection; close removes the socket and is idempotent', async () => {
    const allowed = await upstream('still');
    const { proxy } = await proxyOn([allowed]);
    const rude = net.connect(proxy.address);
    await new Promise<void>((resolve) => rude.once('connect', () => resolve()));
    rude.write('CONNECT 127.0.0.1:1 HTTP/1.1\r\n');
    rude.destroy();
    expect(await rawAsk(proxy.address, `CONNECT 127.0.0.1:${allowed} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200/);
    await Promise.all([proxy.close(), proxy.close()]);
    expect(existsSync(proxy.address)).toBe(false);
  });

  it('on a loopback port (sandbox-exec) it can listen again on the same port after a close', async () => {
    const allowed = await upstream('tcp');
    const logging = testLogging();
    const first = await startEgressProxy({ listen: { port: 0, host: '127.0.0.1' }, allow: [{ host: '127.0.0.1', port: allowed }], log: logging.log });
    const port = first.port!;
    await first.close();
    const again = await startEgressProxy({ listen: { port, host: '127.0.0.1' }, allow: [{ host: '127.0.0.1', port: allowed }], log: logging.log });
    cleanups.push(() => again.close());
    expect(again.address).toBe(`127.0.0.1:${port}`);
  });
});
