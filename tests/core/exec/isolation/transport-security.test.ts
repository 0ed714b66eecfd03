import { describe, expect, it } from 'vitest';
import { isLoopbackHost, plainHttpProblem, unitMcpUrl } from '../../../../shared/transport-security';

describe('plain HTTP only to this machine', () => {
  it('knows loopback: 127.0.0.0/8, ::1, localhost', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '[::1]', '::1', 'localhost', 'LOCALHOST', 'api.localhost']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['128.0.0.1', '127.0.0.1.example.com', '10.0.0.1', '0.0.0.0', 'localhost.example.com', '::2', '127.0.0.256'])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it('accepts https anywhere and http to loopback only', () => {
    expect(plainHttpProblem('https://forge.example.com')).toBeNull();
    expect(plainHttpProblem('http://127.0.0.1:7457')).toBeNull();
    expect(plainHttpProblem('http://[::1]:7457/rost')).toBeNull();
    expect(plainHttpProblem('http://forge.example.com')).toMatch(/forge\.example\.com needs https:\/\//);
    expect(plainHttpProblem('ftp://x')).toMatch(/not http/);
  });
});

describe('the unit MCP URL', () => {
  it('keeps the control plane’s path prefix, as the seed builds it', () => {
    expect(unitMcpUrl('https://host/rost', '/mcp')).toEqual({ ok: true, url: 'https://host/rost/mcp' });
    expect(unitMcpUrl('https://host/rost/', 'mcp')).toEqual({ ok: true, url: 'https://host/rost/mcp' });
    expect(unitMcpUrl('https://host', undefined)).toEqual({ ok: true, url: 'https://host/mcp' });
    expect(unitMcpUrl('http://127.0.0.1:7457', '/mcp')).toEqual({ ok: true, url: 'http://127.0.0.1:7457/mcp' });
    expect(unitMcpUrl('https://host/rost', 'https://host/rost/mcp?x=1')).toEqual({ ok: true, url: 'https://host/rost/mcp?x=1' });
  });

  it('refuses another origin, a path outside the prefix, credentials and plain http off the machine', () => {
    expect(unitMcpUrl('https://host/rost', 'https://evil.example/mcp')).toMatchObject({ ok: false, reason: expect.stringMatching(/not on the control plane/) });
    expect(unitMcpUrl('https://host/rost', '//evil.example/mcp')).toMatchObject({ ok: false });
    expect(unitMcpUrl('https://host/rost', 'http://host/rost/mcp')).toMatchObject({ ok: false });
    expect(unitMcpUrl('https://host/rost', 'https://host/other/mcp')).toMatchObject({ ok: false, reason: expect.stringMatching(/outside/) });
    expect(unitMcpUrl('https://host/rost', '/../other/mcp')).toMatchObject({ ok: false });
    expect(unitMcpUrl('https://host/rost', 'https://u:p@host/rost/mcp')).toMatchObject({ ok: false });
    expect(unitMcpUrl('http://10.0.0.5', '/mcp')).toMatchObject({ ok: false, reason: expect.stringMatching(/needs https/) });
  });
});

describe('the control-plane client', () => {
  it('refuses plain HTTP off this machine before anything is sent', async () => {
    const { JsonHttpClient } = await import('../../../../main/core/connectors/http-json');
    let sent = 0;
    const fetchSpy = async () => {
      sent++;
      return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const remote = new JsonHttpClient('http://forge.example.com', fetchSpy);
    await expect(remote.request({ method: 'POST', path: '/api/runner/heartbeat', body: {}, bearer: 'rsec_x', timeoutMs: 1000 })).rejects.toMatchObject({
      kind: 'rejected',
      message: expect.stringMatching(/refusing to contact http:\/\/forge\.example\.com: .*needs https/),
    });
    expect(sent).toBe(0);
    await new JsonHttpClient('http://127.0.0.1:9', fetchSpy).request({ method: 'GET', path: '/x', timeoutMs: 1000 });
    expect(sent).toBe(1);
  });
});
