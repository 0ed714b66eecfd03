import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { brokerClaude, brokerCodex, codexProviders, withLanes } from '../../../../main/core/exec/isolation/broker-lanes';
import { CredentialBroker, brokerUnavailable } from '../../../../main/core/exec/isolation/credential-broker';
import { strippedSignIn, storedApiKey } from '../../../../main/core/exec/isolation/sign-in-copy';
import { testLogging } from '../../../helpers/test-logger';

/** A model API that records what reached it and streams its answer in two pieces. */
interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let upstream: http.Server;
let upstreamUrl = '';
const seen: Seen[] = [];

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(201, { 'content-type': 'text/event-stream', 'x-upstream': 'yes' });
      res.write('data: one\n\n');
      setImmediate(() => res.end('data: two\n\n'));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const info = upstream.address();
  upstreamUrl = `http://127.0.0.1:${typeof info === 'object' && info ? info.port : 0}`;
});
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

const turns: string[] = [];
const brokers: CredentialBroker[] = [];
afterEach(async () => {
  seen.length = 0;
  await Promise.all(brokers.splice(0).map((b) => b.close()));
  for (const dir of turns.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function turnDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'rt-broker-turn-'));
  turns.push(dir);
  return dir;
}

function newBroker() {
  const logging = testLogging();
  const broker = new CredentialBroker({ log: logging.log });
  brokers.push(broker);
  return { broker, logging };
}

function send(
  url: string,
  headers: Record<string, string>,
  body = '{"model":"m"}',
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const REAL_KEY = 'sk-ant-api03-REAL-operator-key-0123456789';

describe('the credential broker', () => {
  it("swaps the turn's token for the real key, keeps the upstream's path and the request's, and streams the answer back", async () => {
    const { broker, logging } = newBroker();
    const grant = await broker.grant(turnDir(), [{ upstream: `${upstreamUrl}/gateway/`, secrets: { 'x-api-key': REAL_KEY } }]);
    expect(grant.token).toMatch(/^rt-broker-[\w-]{43}$/);
    const answer = await send(`${grant.urls[0]}/v1/messages?beta=true`, { 'x-api-key': grant.token, 'anthropic-version': '2023-06-01' });
    expect(answer).toMatchObject({ status: 201, body: 'data: one\n\ndata: two\n\n' });
    expect(answer.headers['x-upstream']).toBe('yes');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/gateway/v1/messages?beta=true', body: '{"model":"m"}' });
    expect(seen[0]?.headers['x-api-key']).toBe(REAL_KEY);
    expect(seen[0]?.headers['anthropic-version']).toBe('2023-06-01');
    expect(seen[0]?.headers.host).toBe(new URL(upstreamUrl).host);
    // The key is in no log line.
    expect(JSON.stringify(logging.entries)).not.toContain(REAL_KEY);
  });

  it('swaps a bearer token too, and sends no credential the lane does not hold', async () => {
    const { broker } = newBroker();
    const grant = await broker.grant(turnDir(), [{ upstream: upstreamUrl, secrets: { authorization: 'sk-proj-REAL' } }]);
    const answer = await send(`${grant.urls[0]}/v1/responses`, { authorization: `Bearer ${grant.token}`, 'x-api-key': grant.token });
    expect(answer.status).toBe(201);
    expect(seen[0]?.headers.authorization).toBe('Bearer sk-proj-REAL');
    expect(seen[0]?.headers['x-api-key']).toBeUndefined();
  });

  it('refuses without the token, with another turn’s token, on an unknown lane, and forwards nothing', async () => {
    const { broker, logging } = newBroker();
    const mine = await broker.grant(turnDir(), [{ upstream: upstreamUrl, secrets: { 'x-api-key': REAL_KEY } }]);
    const other = await broker.grant(turnDir(), [{ upstream: upstreamUrl, secrets: { 'x-api-key': 'sk-other' } }]);
    expect((await send(`${mine.urls[0]}/v1/messages`, {})).status).toBe(401);
    expect((await send(`${mine.urls[0]}/v1/messages`, { 'x-api-key': other.token })).status).toBe(401);
    expect((await send(`${mine.urls[0]}/v1/messages`, { 'x-api-key': REAL_KEY })).status).toBe(401);
    // The token as a bearer where the lane holds an x-api-key opens nothing either.
    expect((await send(`${mine.urls[0]}/v1/messages`, { authorization: `Bearer ${mine.token}` })).status).toBe(401);
    const origin = new URL(mine.urls[0] ?? '').origin;
    expect((await send(`${origin}/AAAAAAAAAAAAAAAAAAAAAA/v1/messages`, { 'x-api-key': mine.token })).status).toBe(404);
    expect((await send(`${origin}/v1/messages`, { 'x-api-key': mine.token })).status).toBe(404);
    expect(seen).toEqual([]);
    expect(logging.entries.filter((e) => e.msg === 'credential broker refused a request')).toHaveLength(6);
  });

  it('a token opens nothing once its turn has ended: revoked, or its folder gone (a copy carried off in a summary)', async () => {
    const { broker } = newBroker();
    const first = turnDir();
    const second = turnDir();
    const a = await broker.grant(first, [{ upstream: upstreamUrl, secrets: { 'x-api-key': REAL_KEY } }]);
    const b = await broker.grant(second, [{ upstream: upstreamUrl, secrets: { 'x-api-key': REAL_KEY } }]);
    expect((await send(`${a.urls[0]}/v1/messages`, { 'x-api-key': a.token })).status).toBe(201);
    broker.revoke(first);
    expect((await send(`${a.urls[0]}/v1/messages`, { 'x-api-key': a.token })).status).toBe(404);
    rmSync(second, { recursive: true, force: true });
    expect((await send(`${b.urls[0]}/v1/messages`, { 'x-api-key': b.token })).status).toBe(401);
    expect(broker.size).toBe(0);
    expect(seen).toHaveLength(1);
  });

  it('the same turn folder asked again with the same lanes keeps its grant (an app-server respawn); other lanes replace it', async () => {
    const { broker } = newBroker();
    const dir = turnDir();
    const spec = { upstream: upstreamUrl, secrets: { 'x-api-key': REAL_KEY } };
    const first = await broker.grant(dir, [spec]);
    expect(await broker.grant(dir, [{ ...spec }])).toEqual(first);
    const fresh = await broker.grant(dir, [{ upstream: upstreamUrl, secrets: { 'x-api-key': 'sk-rotated' } }]);
    expect(fresh.token).not.toBe(first.token);
    expect((await send(`${first.urls[0]}/v1/messages`, { 'x-api-key': first.token })).status).toBe(404);
    expect((await send(`${fresh.urls[0]}/v1/messages`, { 'x-api-key': fresh.token })).status).toBe(201);
    expect(seen[0]?.headers['x-api-key']).toBe('sk-rotated');
  });

  it('an unreachable model API is a 502 and a log line naming only its host', async () => {
    const { broker, logging } = newBroker();
    const grant = await broker.grant(turnDir(), [{ upstream: 'http://127.0.0.1:9/v1', secrets: { authorization: 'sk-proj-REAL' } }]);
    expect((await send(`${grant.urls[0]}/responses?secret=q`, { authorization: `Bearer ${grant.token}` })).status).toBe(502);
    const line = logging.entries.find((e) => e.msg === 'credential broker could not reach the model API');
    expect(line?.data?.host).toBe('127.0.0.1:9');
    expect(JSON.stringify(logging.entries)).not.toContain('secret=q');
  });

  it('stands aside on a host that reaches the network through an HTTPS proxy', () => {
    expect(brokerUnavailable({ HTTPS_PROXY: 'http://proxy:3128' })).toMatch(/HTTPS_PROXY/);
    expect(brokerUnavailable({ HTTP_PROXY: 'http://proxy:3128' })).toBeNull();
  });
});

describe('what each runtime gets in place of its keys', () => {
  it("claude: the API key and the auth token become the turn's token, the base URL the lane to the operator's", async () => {
    const { broker } = newBroker();
    const dir = turnDir();
    const env = await brokerClaude(broker, dir, { ANTHROPIC_API_KEY: REAL_KEY, ANTHROPIC_AUTH_TOKEN: 'tok-REAL', ANTHROPIC_BASE_URL: upstreamUrl });
    expect(env?.ANTHROPIC_API_KEY).toMatch(/^rt-broker-/);
    expect(env?.ANTHROPIC_AUTH_TOKEN).toBe(env?.ANTHROPIC_API_KEY);
    expect(env?.ANTHROPIC_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[\w-]{22}$/);
    expect(JSON.stringify(env)).not.toContain('REAL');
    expect((await send(`${env?.ANTHROPIC_BASE_URL}/v1/messages`, { authorization: `Bearer ${env?.ANTHROPIC_AUTH_TOKEN}` })).status).toBe(201);
    expect(seen[0]?.headers.authorization).toBe('Bearer tok-REAL');
    // Nothing to stand in for, or no broker: nothing changes.
    expect(await brokerClaude(broker, dir, { ANTHROPIC_BASE_URL: upstreamUrl })).toBeNull();
    expect(await brokerClaude(undefined, dir, { ANTHROPIC_API_KEY: REAL_KEY })).toBeNull();
  });

  const CONFIG = [
    'model = "gpt-x"',
    'model_provider = "corp"',
    'openai_base_url = "https://gateway.example/v1"',
    '',
    '[model_providers.corp]',
    'name = "corp"',
    'base_url = "https://llm.corp.example/v1" # the gateway',
    'env_key = "CORP_KEY"',
    '',
    '[model_providers.nokey]',
    'base_url = "https://other.example/v1"',
    '',
    '[history]',
    'persistence = "none"',
  ].join('\n');

  it('codex: a provider’s env_key and a stored API key become the token, their base URLs lanes; OPENAI_API_KEY is not left behind', async () => {
    const { broker } = newBroker();
    expect(codexProviders(CONFIG)).toEqual([
      { name: 'corp', envKey: 'CORP_KEY', baseUrl: 'https://llm.corp.example/v1' },
      { name: 'nokey', envKey: null, baseUrl: 'https://other.example/v1' },
    ]);
    const brokered = await brokerCodex(broker, turnDir(), {
      config: CONFIG,
      env: { CORP_KEY: 'corp-REAL', OPENAI_API_KEY: 'sk-env-REAL' },
      storedApiKey: 'sk-stored-REAL',
    });
    expect(brokered).not.toBeNull();
    const token = brokered?.env.CORP_KEY ?? '';
    expect(token).toMatch(/^rt-broker-/);
    expect(brokered?.env).toEqual({ CORP_KEY: token, OPENAI_API_KEY: token });
    expect(brokered?.storedKey).toBe(token);
    const config = brokered?.config ?? '';
    expect(config).not.toContain('llm.corp.example');
    expect(config).not.toContain('gateway.example');
    expect(config).toContain('base_url = "https://other.example/v1"');
    expect(config.match(/^openai_base_url = "http:\/\/127\.0\.0\.1:\d+\/[\w-]{22}"$/gm)).toHaveLength(1);
    expect(config.match(/^base_url = "http:\/\/127\.0\.0\.1:\d+\/[\w-]{22}"$/gm)).toHaveLength(1);
    // The top-level key stays above the first table, where TOML reads it as top-level.
    expect(config.indexOf('openai_base_url')).toBeLessThan(config.indexOf('[model_providers.corp]'));
    expect(brokered?.env.OPENAI_API_KEY).toBe(token);
  });

  it("codex: the stored API key's lane goes to the operator's openai_base_url; withLanes adds one where there was none", () => {
    expect(withLanes('model = "m"\n\n[history]\npersistence = "none"', new Map(), 'http://lane')).toBe(
      'model = "m"\n\nopenai_base_url = "http://lane"\n[history]\npersistence = "none"',
    );
    expect(withLanes('model = "m"', new Map(), 'http://lane')).toBe('model = "m"\nopenai_base_url = "http://lane"');
  });

  it("codex's auth.json copy: the stored API key is read, and replaced by the token in the copy", () => {
    const text = JSON.stringify({ OPENAI_API_KEY: 'sk-stored-REAL', tokens: null, last_refresh: null });
    expect(storedApiKey(text)).toBe('sk-stored-REAL');
    expect(storedApiKey('{"tokens":{}}')).toBeNull();
    expect(storedApiKey('not json')).toBeNull();
    expect(JSON.parse(strippedSignIn('codex', text, 'rt-broker-x') ?? '{}')).toEqual({ OPENAI_API_KEY: 'rt-broker-x', last_refresh: null });
  });
});
