// Outbound proxies for every control-plane and sign-in request, as the GitHub Actions
// runner reads them: `HTTPS_PROXY`/`https_proxy` for https: addresses, `HTTP_PROXY`/
// `http_proxy` for http: ones (and for https: ones when no HTTPS proxy is set), and
// `NO_PROXY`/`no_proxy` (comma or space separated hosts, `.suffix` or `*.suffix`,
// `host:port`, or `*` for none) for the hosts reached directly. Loopback is not exempt by
// itself: list `localhost,127.0.0.1` in NO_PROXY to reach a local control plane directly.
//
// Without a proxy variable every request stays on node:http (node-fetch.ts). With one,
// undici's fetch and its EnvHttpProxyAgent carry it (loaded then, not before): CONNECT
// tunnels for https:, absolute-form requests for http:.
import { z } from 'zod';
import type { Dispatcher } from 'undici';
import type { FetchLike, FetchResponse } from './http-json';
import { nodeFetch } from './node-fetch';

type Env = Readonly<Record<string, string | undefined>>;

const ProxyUrlSchema = z
  .string()
  .trim()
  .refine((value) => /^https?:\/\/[^\s]+$/i.test(value) && URL.canParse(value), { error: 'must be an http:// or https:// address' });

export interface ProxyConfig {
  httpProxy: string | null;
  httpsProxy: string | null;
  noProxy: string;
}

/** The proxy variables, lower case first (as curl, git and the Actions runner read them); blank counts as unset. */
export function proxyConfig(env: Env): ProxyConfig | { error: string } {
  const pick = (names: readonly string[]): { name: string; value: string } | null => {
    const name = names.find((n) => (env[n] ?? '').trim() !== '');
    return name === undefined ? null : { name, value: env[name]!.trim() };
  };
  const parsed: Record<'http' | 'https', string | null> = { http: null, https: null };
  for (const [key, names] of [
    ['http', ['http_proxy', 'HTTP_PROXY']],
    ['https', ['https_proxy', 'HTTPS_PROXY']],
  ] as const) {
    const raw = pick(names);
    if (raw === null) continue;
    const checked = ProxyUrlSchema.safeParse(raw.value);
    if (!checked.success) return { error: `${raw.name} ${checked.error.issues[0]?.message ?? 'is not valid'}` };
    parsed[key] = checked.data;
  }
  if (parsed.http === null && parsed.https === null) return { httpProxy: null, httpsProxy: null, noProxy: '' };
  return { httpProxy: parsed.http, httpsProxy: parsed.https ?? parsed.http, noProxy: pick(['no_proxy', 'NO_PROXY'])?.value ?? '' };
}

/**
 * A FetchLike that honours the proxy variables of `env` (read on each request, so a
 * service's environment is what counts). One agent per distinct configuration.
 */
export function proxyAwareFetch(env: Env = process.env): FetchLike {
  let agent: { key: string; dispatcher: Promise<Dispatcher> } | null = null;
  return async (input, init) => {
    const config = proxyConfig(env);
    if ('error' in config) throw new Error(`the proxy setting is not usable: ${config.error}`);
    if (config.httpProxy === null && config.httpsProxy === null) return nodeFetch(input, init);
    const key = JSON.stringify(config);
    if (agent?.key !== key) {
      const previous = agent;
      agent = {
        key,
        dispatcher: import('undici').then(
          ({ EnvHttpProxyAgent }) =>
            new EnvHttpProxyAgent({
              ...(config.httpProxy ? { httpProxy: config.httpProxy } : {}),
              ...(config.httpsProxy ? { httpsProxy: config.httpsProxy } : {}),
              noProxy: config.noProxy,
            }),
        ),
      };
      void previous?.dispatcher.then((d) => d.close()).catch(() => undefined);
    }
    const [{ fetch }, dispatcher] = await Promise.all([import('undici'), agent.dispatcher]);
    const response = await fetch(input, {
      method: init.method ?? 'GET',
      headers: init.headers as Record<string, string>,
      ...(typeof init.body === 'string' ? { body: init.body } : {}),
      signal: init.signal ?? null,
      redirect: init.redirect ?? 'error',
      dispatcher,
    });
    // The body is read now, as node-fetch.ts does, so the connection goes back to the agent.
    const text = response.text();
    text.catch(() => undefined);
    return { status: response.status, text: () => text } satisfies FetchResponse;
  };
}
