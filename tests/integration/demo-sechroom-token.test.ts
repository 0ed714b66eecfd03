import { afterEach, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';
// @ts-expect-error -- a plain .mjs script module, without type declarations
import { mintDemoToken } from '../../scripts/demo-sechroom.mjs';
import { fakeClock } from '../emulator/helpers';

let emu: RunningEmulator | null = null;
afterEach(async () => {
  await emu?.close();
  emu = null;
});

/** What the Work Layer answers the demo's bearer, as the host's executor sends it. */
async function me(token: string, tenant: string): Promise<number> {
  const res = await fetch(`${emu!.sechroomUrl}/me`, {
    headers: { authorization: `Bearer ${token}`, tenant, 'x-sechroom-surface': 'executor' },
  });
  return res.status;
}

// The demo gave the host a bearer of the Work Layer's default lifetime (15 min), never
// refreshed: a quarter of an hour in, every Sechroom call was refused.
it("the demo's Sechroom bearer still works after 15 minutes, and after a day", async () => {
  const clock = fakeClock();
  emu = await startEmulator({ now: clock.now });
  const { token, tenant } = (await mintDemoToken(emu.url)) as { token: string; tenant: string };
  expect(await me(token, tenant)).toBe(200);
  clock.advance(16 * 60_000);
  expect(await me(token, tenant)).toBe(200);
  clock.advance(24 * 3600_000);
  expect(await me(token, tenant)).toBe(200);
});
