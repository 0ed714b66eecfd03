import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';
// @ts-expect-error -- a plain .mjs script module, without type declarations
import { sechroomPlane } from '../../scripts/demo-sechroom.mjs';
import { startHeadlessHost, type RunningHost } from '../e2e/headless-host';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

let emu: RunningEmulator | null = null;
let host: RunningHost | null = null;
let demoDir = '';
afterEach(async () => {
  await host?.stop();
  await emu?.close();
  host = emu = null;
  if (demoDir) rmSync(demoDir, { recursive: true, force: true });
  demoDir = '';
});

/** What the Work Layer answers a bearer, as the host's executor sends it. */
async function me(token: string, tenant: string): Promise<number> {
  const res = await fetch(`${emu!.sechroomUrl}/me`, { headers: { authorization: `Bearer ${token}`, tenant, 'x-sechroom-surface': 'executor' } });
  return res.status;
}

type Plane = { args: string[]; env: Record<string, string> };

// The demo handed the host a bearer nothing refreshed: when it expired (the Work Layer's
// 15 min; the demo once minted 30 days to hide it) every Sechroom call was refused.
it("the demo's Sechroom profile keeps claiming after its bearer expired mid-run: the host refreshes it", async () => {
  // Every Sechroom bearer lives 5 s here, the refreshed ones too.
  emu = await startEmulator({ sechroom: { accessTokenTtlMs: 5000 } });
  demoDir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-demo-token-'));
  const plane = (await sechroomPlane({ root: repoRoot, demoDir, controlPlane: emu.url, fakeRuntime: true })) as Plane;
  const { SECHROOM_TOKEN: token, SECHROOM_TENANT: tenant } = plane.env as { SECHROOM_TOKEN: string; SECHROOM_TENANT: string };
  expect(plane.env.SECHROOM_REFRESH_TOKEN).toMatch(/^ort_/);
  host = await startHeadlessHost(['--control-plane', emu.url, '--allow-file-secret-store', ...plane.args], plane.env);

  const done = (memoryId: string) =>
    vi.waitFor(
      () => {
        const [completion] = emu!.sechroom.listCompletions({ memory_id: memoryId });
        if (!completion) throw new Error(`no completion for ${memoryId} yet:\n${host!.output.join('\n')}`);
        return completion;
      },
      { timeout: 60_000, interval: 100 },
    );
  const first = emu.sechroom.createTask({ title: 'Before the expiry', objective: 'Write the file.' });
  expect(await done(first.memoryId)).toMatchObject({ verdict: 'pass' });
  // The bearer the demo minted is now refused (a condition, not a sleep) …
  await vi.waitFor(async () => expect(await me(token, tenant)).toBe(401), { timeout: 30_000, interval: 250 });
  // … and the profile still claims and completes the next task.
  const second = emu.sechroom.createTask({ title: 'After the expiry', objective: 'Write the file again.' });
  expect(await done(second.memoryId)).toMatchObject({ verdict: 'pass' });

  const grants = emu.admin.listEvents({ type: 'oauth.token_issued' }).map((e) => e.data.grant_id);
  const minted = grants[0];
  expect(grants.filter((g) => g === minted).length).toBeGreaterThan(1);
  const text = host.output.join('\n');
  expect(text).not.toMatch(/\[demo-codex\] Status: Error/);
  expect(text).not.toContain(token);
  expect(text).not.toContain(plane.env.SECHROOM_REFRESH_TOKEN);
}, 120_000);
