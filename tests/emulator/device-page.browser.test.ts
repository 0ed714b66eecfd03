import { chromium, type Browser, type Page } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PairingStartResponseSchema } from '../../shared/protocol';
import { api, launch } from './helpers';

type Emu = Awaited<ReturnType<typeof launch>>;
let emu: Emu;
let browser: Browser;

beforeAll(async () => {
  emu = await launch({ config: { pairingIntervalSec: 0 } });
  emu.admin.createOperator({ name: 'Ada Admin', role: 'tenant_admin' });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await emu?.close();
});

async function startPairing(name: string) {
  const res = await api(emu.url, '/api/runner/pairing/start', { body: { name, platform: 'darwin', hostname: 'studio.local', runner_version: '0.1.0' } });
  return PairingStartResponseSchema.parse(res.json);
}

/** A fresh browser context (own cookies) signed in as Ada via the dev sign-in, landing on `path`. */
async function signedInPage(path: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${emu.url}${path}`);
  await expect.poll(() => new URL(page.url()).pathname).toBe('/signin');
  await page.getByRole('button', { name: 'Sign in as Ada Admin' }).click();
  await page.waitForURL((url) => url.pathname === new URL(`${emu.url}${path}`).pathname);
  return page;
}

describe('/device approval page in Chromium', () => {
  it('signs in, follows the code link, shows the runner and pairs it; the runner can then claim', async () => {
    const pairing = await startPairing('<img src=x onerror=alert(1)> studio');
    const page = await signedInPage(new URL(pairing.verification_uri_complete!).pathname + new URL(pairing.verification_uri_complete!).search);
    await expect.poll(() => page.locator('#runner-name').textContent()).toBe('<img src=x onerror=alert(1)> studio');
    expect(await page.locator('#runner-platform').textContent()).toBe('darwin');
    expect(await page.locator('#runner-hostname').textContent()).toBe('studio.local');
    expect(await page.locator('#runner-ip').textContent()).toBe('127.0.0.1');
    expect(await page.locator('img').count()).toBe(0);
    await page.getByRole('button', { name: 'Pair' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Runner paired');

    const creds = await api(emu.url, '/api/runner/pairing/claim', { body: { pairing_id: pairing.pairing_id } });
    expect(creds.status).toBe(200);
    const claim = await api(emu.url, '/api/runner/work-orders/claim', { token: creds.json.runner_secret, body: {} });
    expect(claim.status).toBe(204);
    await page.context().close();
  });

  it('accepts a typed code in lower case without the dash, and denies it', async () => {
    const pairing = await startPairing('stranger');
    const page = await signedInPage('/device');
    await page.getByLabel('Code').fill(pairing.user_code.replace('-', '').toLowerCase());
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.locator('#runner-name').textContent()).toBe('stranger');
    await page.getByRole('button', { name: 'Deny' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Pairing denied');
    const poll = await api(emu.url, '/api/runner/pairing/claim', { body: { pairing_id: pairing.pairing_id } });
    expect(poll.json.error).toBe('access_denied');
    await page.context().close();
  });

  it('rate-limits the page after 5 wrong codes', async () => {
    const pairing = await startPairing('late');
    const page = await signedInPage('/device');
    for (let i = 0; i < 5; i++) {
      await page.getByLabel('Code').fill('BBBB-BBBB');
      await page.getByRole('button', { name: 'Continue' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('not valid');
    }
    await page.getByLabel('Code').fill(pairing.user_code);
    const response = page.waitForResponse((r) => r.url().includes('/device?code='));
    await page.getByRole('button', { name: 'Continue' }).click();
    expect((await response).status()).toBe(429);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Too many wrong codes');
    expect(emu.admin.listPairings().find((p) => p.id === pairing.pairing_id)?.status).toBe('pending');
    await page.context().close();
  });
});
