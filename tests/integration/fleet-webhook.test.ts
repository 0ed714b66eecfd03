import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../main/core/base/ports';
import { proxyAwareFetch } from '../../main/core/connectors/proxy-fetch';
import { WebhookNotifier, type WebhookBody } from '../../main/headless/fleet/webhook';
import { finished, pairWithClaude, startHarness, type Harness } from './core-harness';

// The real core against the emulator, with two webhooks: one on loopback that records what
// it gets, one that takes the request and never answers. A usage limit and its recovery
// reach the first; the second holds nothing up: the unit waiting behind the limit is
// claimed and runs all the same.

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));
const CANARY = 'hook-path-canary-77e1';

let h: Harness | null = null;
const servers: http.Server[] = [];
afterEach(async () => {
  await h?.close();
  h = null;
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

async function listen(handle: http.RequestListener): Promise<string> {
  const server = http.createServer(handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/${CANARY}`;
}

describe('webhook notifications of a headless host', () => {
  it('a usage limit and its recovery reach the webhook; a webhook that never answers does not hold up claiming', async () => {
    const received: { path: string; body: WebhookBody }[] = [];
    let arrived: () => void = () => undefined;
    const good = await listen((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body: JSON.parse(text) as WebhookBody });
        res.end('ok');
        arrived();
      });
    });
    let held = 0;
    const hanging = await listen((req) => {
      held++;
      req.resume();
    });
    h = await startHarness({
      settings: { runtime: 'claude', maxSessions: 1 },
      emulator: { config: { longPollMaxMs: 2_000, caps: { tenant: 8, project: 8, defaultAccount: 8 } } },
      core: { runtimeBinaries: { claude: FAKE, codex: FAKE } },
    });
    const lines: string[] = [];
    for (const url of [good, hanging]) {
      const notifier = new WebhookNotifier({ url, host: 'it-host', clock: systemClock, fetch: proxyAwareFetch({}), log: (l) => lines.push(l) });
      h.core.host.subscribe((batch) => notifier.onEvents(batch));
    }
    await pairWithClaude(h);

    const resetSec = Math.ceil(Date.now() / 1000) + 3;
    const limited = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: `fake:json limit:${resetSec}` });
    expect((await finished(h, limited.id)).phase).toBe('failed');
    const waiting = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:after-reset' });
    expect((await finished(h, waiting.id)).phase).toBe('succeeded');
    await h.waitForEvent('usage:notice', (n) => n.kind === 'recovered');
    while (!received.some((r) => r.body.runner_tray.kind === 'usage-recovered')) await new Promise<void>((resolve) => (arrived = resolve));

    const kinds = received.map((r) => r.body.runner_tray.kind);
    expect(kinds).toContain('usage-limited');
    expect(kinds).toContain('usage-recovered');
    const limit = received.find((r) => r.body.runner_tray.kind === 'usage-limited')!.body;
    expect(limit.text).toMatch(/^Runner Tray on it-host: the claude:default account reached its usage limit until /);
    expect(limit.runner_tray).toMatchObject({ profile: null, host: 'it-host' });
    expect(held).toBeGreaterThanOrEqual(2);
    // The hook's address is a secret: no body or line carries it.
    expect(JSON.stringify(received.map((r) => r.body))).not.toContain(CANARY);
    expect(lines.join('\n')).not.toContain(CANARY);
  });
});
