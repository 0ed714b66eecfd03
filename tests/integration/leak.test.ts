import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../shared/contract';
import { filesUnder, startHarness, type Harness } from './core-harness';

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let h: Harness | null = null;
const temps: string[] = [];
afterEach(async () => {
  await h?.close();
  h = null;
  temps.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

describe('secrets never leave the secret store', () => {
  it('the runner secret and the MCP tokens appear in no log, no UI event, no result and no file but the store', async () => {
    // Capture every MCP token the control plane hands out, as the core receives it.
    const mcpTokens: string[] = [];
    const recordingFetch = async (input: string, init: RequestInit) => {
      const response = await fetch(input, init);
      if (input.endsWith('/claim') && response.status === 200) {
        const body = (await response.clone().json()) as Record<string, { mcp?: { token?: string } } | undefined>;
        const token = body.turn_execution?.mcp?.token ?? body.work_order?.mcp?.token;
        if (token) mcpTokens.push(token);
      }
      return response;
    };
    h = await startHarness({ core: { runtimeBinaries: { claude: FAKE, codex: FAKE }, fetch: recordingFetch } });

    // The canary: a real runner secret, brought in through a `rost runner serve` state file.
    const { runner_id, runner_secret, tenant_id } = h.emu.admin.createRunner({ name: 'canary-runner' });
    const stateDir = mkdtempSync(path.join(os.tmpdir(), 'rost-state-'));
    temps.push(stateDir);
    const stateFile = path.join(stateDir, 'rost-runner-0000.json');
    writeFileSync(stateFile, JSON.stringify({ runner_id, runner_secret, tenant_id, name: 'canary-runner' }), { mode: 0o600 });
    await h.invoke('runner:import', { file: stateFile });
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null && s.heartbeat.longPoll);
    expect(readFileSync(stateFile, 'utf8')).not.toContain(runner_secret);

    // A turn whose runtime prints its MCP token, plainly and as a bearer header.
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:echo-secret' });
    await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === unit.id));
    await h.emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === unit.id, { timeoutMs: 10_000, since: 0 });
    // A failed call that quotes the secret in an error path must not leak it either.
    await h.core.host.invoke('runner:unpair', { force: false });
    await h.core.shutdown(0);

    expect(mcpTokens).toHaveLength(1);
    const secrets = [runner_secret, ...mcpTokens];
    const events = JSON.stringify(h.events);
    const logs = JSON.stringify(h.events.filter((e) => e.event === 'log:entries').flatMap((e) => e.payload as LogEntry[]));
    const results = JSON.stringify(h.emu.admin.listResults({}));
    const files = filesUnder(h.dataDir).filter((f) => !f.file.startsWith(`secrets${path.sep}`));
    expect(files.some((f) => f.file.startsWith('logs'))).toBe(true);
    expect(logs.length).toBeGreaterThan(100);
    for (const secret of secrets) {
      expect(events.includes(secret), 'a UI event carries a secret').toBe(false);
      expect(results.includes(secret), 'a result carries a secret').toBe(false);
      for (const f of files) expect(f.text.includes(secret), `${f.file} carries a secret`).toBe(false);
    }
    // The runtime really did print the token: redaction, not silence, kept it out.
    expect(results).toContain('[REDACTED]');
  });
});
