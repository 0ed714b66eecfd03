// The attack: a spy runtime in the default sandbox (bubblewrap, network allowlist) tries
// every way out it is told of: a host loopback service nobody allowed, a host abstract
// unix socket (where a session bus may live), the proxy to a host not on its list and to
// that loopback service. It must reach only its MCP server and what the operator allowed.
// The control run, with `turnNetwork: shared`, shows the probes work: there it reaches both.
import http from 'node:http';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandWorks, probeIsolation, type IsolationTools } from '../../../main/core/exec/isolation';
import type { EgressOptions } from '../../../main/core/exec/isolation/egress/egress-plan';
import { createCommandRunner } from '../../../main/core/exec/process-runner';
import { request, setup } from './exec-helpers';

const SPY = fileURLToPath(new URL('../../fixtures/egress-spy.mjs', import.meta.url));
const linux = process.platform === 'linux';
const bwrap = linux ? await createCommandRunner().which('bwrap') : null;
const tools: IsolationTools | null = bwrap ? await probeIsolation({ platform: 'linux', which: async () => bwrap, works: commandWorks }) : null;
const skip = tools?.level !== 'bubblewrap' ? (tools?.note ?? (linux ? 'bwrap is not installed' : 'not Linux')) : '';

interface Findings {
  proxyVariable: boolean;
  noProxy: string | null;
  directPrivate: string;
  abstractSocket: string;
  allowed: string;
  extra: string;
  proxyPrivate: number | string;
  proxyElsewhere: number | string;
  proxyExtra: number | string;
}

function serve(text: string): Promise<http.Server> {
  const server = http.createServer((_req, res) => res.end(text));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
const portOf = (server: net.Server): number => (server.address() as net.AddressInfo).port;

describe.skipIf(skip !== '')(`a turn's network${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const abstractName = `rt-egress-test-${randomBytes(6).toString('hex')}`;
  let privateService: http.Server;
  let mcp: http.Server;
  let extra: http.Server;
  let bus: net.Server;
  beforeAll(async () => {
    [privateService, mcp, extra] = await Promise.all([serve('private'), serve('mcp'), serve('extra')]);
    bus = net.createServer((socket) => socket.on('error', () => undefined).end('bus\n'));
    await new Promise<void>((resolve) => bus.listen(`\0${abstractName}`, () => resolve()));
  });
  afterAll(() => {
    for (const server of [privateService, mcp, extra, bus]) server?.close();
  });

  async function attack(egress: EgressOptions, given: IsolationTools = tools!): Promise<{ findings: Findings | null; summary: string; denied: string[] }> {
    const { executor, logging } = setup({
      isolation: { tools: async () => given, extraEnvAllow: () => [], ownConfig: () => false, hidden: [], egress: () => egress },
    });
    const outcome = await executor.execute(
      request(
        {
          EGRESS_TARGETS: JSON.stringify({
            privatePort: portOf(privateService),
            allowedUrl: `http://127.0.0.1:${portOf(mcp)}/mcp`,
            extraPort: portOf(extra),
            abstractName,
          }),
        },
        { binary: SPY, mcp: { serverUrl: `http://127.0.0.1:${portOf(mcp)}/mcp`, token: 'mcp-token-for-the-egress-test' } },
      ),
    );
    const marker = outcome.summary.indexOf('EGRESS {');
    const findings = marker >= 0 ? (JSON.parse(outcome.summary.slice(marker + 7).split('\n')[0]!) as Findings) : null;
    const denied = logging.entries.filter((e) => e.msg === 'egress denied').map((e) => String(e.data?.target));
    return { findings, summary: outcome.summary, denied };
  }

  it('under the allowlist reaches its MCP server and the allowed host, and nothing else', async () => {
    const { findings, summary, denied } = await attack({ network: 'allowlist', hosts: [`127.0.0.1:${portOf(extra)}`] });
    expect(findings, summary).not.toBeNull();
    expect(findings).toMatchObject({
      proxyVariable: true,
      allowed: '200 mcp',
      extra: '200 extra',
      proxyExtra: 200,
      // The proxy refuses what is not on the list, loopback included.
      proxyPrivate: 403,
      proxyElsewhere: 403,
    });
    // Its own network namespace: no host loopback port, no host abstract socket.
    expect(findings!.directPrivate).not.toBe('open');
    expect(findings!.abstractSocket).not.toBe('open');
    // What was refused is logged by host:port only.
    expect(denied).toEqual(expect.arrayContaining([`127.0.0.1:${portOf(privateService)}`, 'example.com:443']));
  }, 60_000);

  it('with turnNetwork shared (the control run) the same probes reach the host loopback service and the abstract socket', async () => {
    const { findings, summary } = await attack({ network: 'shared', hosts: [] });
    expect(findings, summary).not.toBeNull();
    expect(findings).toMatchObject({ proxyVariable: false, directPrivate: 'open', abstractSocket: 'open', allowed: '200 mcp', extra: '200 extra' });
  }, 60_000);

  it('where bubblewrap cannot make a network namespace (the probe says so), the turn still runs, on the host network', async () => {
    const { findings, summary } = await attack({ network: 'allowlist', hosts: [] }, { ...tools!, sharedNetworkOnly: true });
    expect(findings, summary).not.toBeNull();
    expect(findings).toMatchObject({ proxyVariable: false, directPrivate: 'open', allowed: '200 mcp' });
  }, 60_000);
});

if (skip) it.skip(`the egress attack needs bubblewrap (${skip})`, () => {});
