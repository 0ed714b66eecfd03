import { afterEach, describe, expect, it } from 'vitest';
import { JsonHttpClient } from '../../../main/core/connectors/http-json';
import { proxyAwareFetch, proxyConfig } from '../../../main/core/connectors/proxy-fetch';
import { deliveryEnv } from '../../../main/core/delivery/git-process';
import { startEmulator, type RunningEmulator } from '../../../emulator';
import { startLoopbackProxy, type LoopbackProxy } from '../../helpers/connect-proxy';

let emu: RunningEmulator | null = null;
let proxy: LoopbackProxy | null = null;
afterEach(async () => {
  await proxy?.close();
  await emu?.close();
  proxy = null;
  emu = null;
});

async function setUp(): Promise<{ emu: RunningEmulator; proxy: LoopbackProxy; host: string }> {
  emu = await startEmulator({});
  proxy = await startLoopbackProxy();
  return { emu, proxy, host: new URL(emu.url).host };
}

/** One control-plane request from a client whose environment is `env`. */
async function ask(base: string, env: Record<string, string>): Promise<number> {
  const client = new JsonHttpClient(base, proxyAwareFetch(env));
  return (await client.request({ method: 'GET', path: '/healthz', timeoutMs: 5_000 })).status;
}

describe('outbound proxy (HTTP_PROXY, HTTPS_PROXY, NO_PROXY)', () => {
  it('sends control-plane requests through HTTP_PROXY, and loopback is not exempt by itself', async () => {
    const { emu, proxy, host } = await setUp();
    expect(await ask(emu.url, { HTTP_PROXY: proxy.url })).toBe(200);
    expect(await ask(emu.url, { http_proxy: proxy.url, NO_PROXY: 'example.com' })).toBe(200);
    expect(proxy.seen.length).toBeGreaterThanOrEqual(2);
    expect(proxy.seen.every((target) => target === host)).toBe(true);
  });

  it('goes direct when NO_PROXY covers the host (by name, with its port, or *)', async () => {
    const { emu, proxy, host } = await setUp();
    const port = new URL(emu.url).port;
    for (const noProxy of ['127.0.0.1', `127.0.0.1:${port}`, 'example.com, 127.0.0.1', '*']) {
      expect(await ask(emu.url, { HTTP_PROXY: proxy.url, no_proxy: noProxy })).toBe(200);
    }
    expect(await ask(emu.url, { HTTP_PROXY: proxy.url, NO_PROXY: `127.0.0.1:${Number(port) + 1}` })).toBe(200);
    expect(proxy.seen).toEqual([host]);
  });

  it('without a proxy variable never touches a proxy; a malformed one fails the request, naming the variable only', async () => {
    const { emu, proxy } = await setUp();
    expect(await ask(emu.url, {})).toBe(200);
    expect(proxy.seen).toEqual([]);
    const secretish = 'ftp://user:canary-pass@proxy.example';
    await expect(ask(emu.url, { HTTPS_PROXY: secretish })).rejects.toThrow(/HTTPS_PROXY must be an http/);
    await expect(ask(emu.url, { HTTPS_PROXY: secretish })).rejects.not.toThrow(/canary-pass/);
  });

  it('reads lower case first and lets HTTP_PROXY stand in for https: addresses', () => {
    expect(proxyConfig({ HTTP_PROXY: 'http://a:1', http_proxy: 'http://b:2' })).toEqual({ httpProxy: 'http://b:2', httpsProxy: 'http://b:2', noProxy: '' });
    expect(proxyConfig({ HTTPS_PROXY: 'http://c:3', NO_PROXY: '.corp' })).toEqual({ httpProxy: null, httpsProxy: 'http://c:3', noProxy: '.corp' });
  });

  it('keeps the proxy variables in the environment git delivers with', () => {
    const env = deliveryEnv({ HTTPS_PROXY: 'http://p:1', https_proxy: 'http://p:1', NO_PROXY: 'git.corp', no_proxy: 'git.corp', SECRET_THING: 'x' });
    expect(env).toMatchObject({ HTTPS_PROXY: 'http://p:1', https_proxy: 'http://p:1', NO_PROXY: 'git.corp', no_proxy: 'git.corp' });
    expect(env.SECRET_THING).toBeUndefined();
  });
});
