import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TerminalReporter } from '../../main/headless/terminal-reporter';
import { filesUnder, startHarness, type Harness } from './core-harness';

let h: Harness | null = null;
const temps: string[] = [];
afterEach(async () => {
  await h?.close();
  h = null;
  temps.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

describe('a control plane that echoes the runner secret back in an error', () => {
  it('never puts it in a UI event, a log or the terminal', async () => {
    h = await startHarness();
    const terminal: string[] = [];
    const reporter = new TerminalReporter({ write: (text: string) => terminal.push(text) });
    h.core.host.subscribe((batch) => reporter.onEvents(batch));

    const { runner_id, runner_secret, tenant_id } = h.emu.admin.createRunner({ name: 'echo-runner' });
    const stateDir = mkdtempSync(path.join(os.tmpdir(), 'rost-state-'));
    temps.push(stateDir);
    const stateFile = path.join(stateDir, 'rost-runner-0000.json');
    writeFileSync(stateFile, JSON.stringify({ runner_id, runner_secret, tenant_id, name: 'echo-runner' }), { mode: 0o600 });
    h.emu.admin.addFault({
      route: '/api/runner/heartbeat',
      error: { rate: 1, status: 400, body: { error: runner_secret, message: `bad bearer ${runner_secret}`, detail: { token: runner_secret } } },
      remaining: 2,
    });
    await h.invoke('runner:import', { file: stateFile });
    await h.waitForEvent('runner:status', (s) => s.state === 'offline');
    // The fault ran out: the runner recovers, the refusal was seen and told.
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null);
    await h.core.shutdown(0);

    const offline = h.events.find((e) => e.event === 'runner:status' && e.payload.state === 'offline');
    expect(offline?.payload).toMatchObject({ reason: expect.stringContaining('refused (400') });
    expect(terminal.join('')).toContain('refused (400');
    expect(JSON.stringify(h.events).includes(runner_secret), 'a UI event carries the secret').toBe(false);
    expect(terminal.join('').includes(runner_secret), 'the terminal shows the secret').toBe(false);
    for (const f of filesUnder(h.dataDir).filter((f) => !f.file.startsWith(`secrets${path.sep}`))) {
      expect(f.text.includes(runner_secret), `${f.file} carries the secret`).toBe(false);
    }
  });
});
