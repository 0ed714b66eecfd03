import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState, RunnerSnapshot } from '../../shared/runner';
import { operatorId, signIn } from '../core/operator/operator-helpers';
import { csrfFrom, getPage, postForm, signIn as browserSignIn } from '../emulator/helpers';
import { startHarness, type Harness } from './core-harness';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const paired = (harness: Harness) => harness.waitForEvent('runner:snapshot', (s) => s.identity !== null && s.heartbeat.lastOkAt !== null, 15_000);

describe('the three ways to pair, against the emulator', () => {
  it('pairs with a code an operator got on the web page ("Add a runner"), as --user-code does', async () => {
    h = await startHarness({ emulator: { seed: 'demo' } });
    const admin = operatorId(h, 'Ada Admin');
    const cookie = await browserSignIn(h.emu.url, admin);
    const form = await getPage(h.emu.url, '/runners/new', cookie);
    expect(form.status).toBe(200);
    const issued = await postForm(h.emu.url, '/runners/new', cookie, { name: '', csrf: csrfFrom(form.text) });
    const code = /id="issued-code">([A-Z]{4}-[A-Z]{4})</.exec(issued.text)?.[1];
    expect(code).toBeDefined();

    // Typed loosely, as a person pastes it.
    const state = await h.invoke<PairingState>('pairing:start-with-code', { code: code!.toLowerCase().replace('-', ' ') });
    expect(state).toMatchObject({ phase: 'waiting', userCode: code });
    const snapshot: RunnerSnapshot = await paired(h);
    const operatorTenant = h.emu.admin.listOperators().find((o) => o.id === admin)!.tenant_id;
    expect(snapshot.identity).toMatchObject({ name: 'it-runner', tenantId: operatorTenant });
    // The code named no runner, so the runner's own name and details were used.
    expect(h.emu.admin.listRunners().find((r) => r.id === snapshot.identity!.runnerId)).toMatchObject({ name: 'it-runner' });
    // A code is good once.
    expect(h.emu.admin.listPairings().find((p) => p.user_code === code)?.status).toBe('claimed');
  });

  it('refuses an unknown code clearly and stays unpaired', async () => {
    h = await startHarness();
    await h.invoke('pairing:start-with-code', { code: 'BCDF-GHJK' });
    const ended = await h.waitForEvent('runner:snapshot', (s) => s.pairing?.phase === 'expired', 15_000);
    expect(ended.identity).toBeNull();
    const refused = await h.core.host.invoke('pairing:start-with-code', { code: 'two words' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_code' } });
  });

  it('starts with the authenticated runner.pairing.start when an operator is signed in, and needs no second approval', async () => {
    h = await startHarness({ emulator: { seed: 'demo', config: { oauthIntervalSec: 1 } } });
    await signIn(h, 'Ada Admin');
    await h.invoke<PairingState>('pairing:start');
    const snapshot = await paired(h);
    const started = h.emu.admin.listEvents({ type: 'pairing.approved', limit: 10 });
    expect(started).toHaveLength(1);
    expect(started[0]!.data.operator_id).toBe(operatorId(h, 'Ada Admin'));
    expect(snapshot.identity!.tenantId).toBe(h.emu.admin.listOperators().find((o) => o.name === 'Ada Admin')!.tenant_id);
  });

  it('falls back to the unauthenticated device-code start when the server has no runner.pairing.start', async () => {
    h = await startHarness({ emulator: { seed: 'demo', config: { oauthIntervalSec: 1 } } });
    await signIn(h, 'Ada Admin');
    h.emu.admin.addFault({ route: '/api/commands/runner.pairing.start', error: { rate: 1, status: 404, body: { error: 'unknown_command' } } });
    const state = await h.invoke<PairingState>('pairing:start');
    if (state.phase !== 'waiting') throw new Error(`not waiting: ${state.phase}`);
    // Nobody approved it yet: this is the device flow, waiting for a human.
    expect(h.emu.admin.listPairings().find((p) => p.user_code === state.userCode)?.status).toBe('pending');
    h.emu.admin.approvePairing(state.userCode);
    await paired(h);
  });

  it('takes the expected tenant and the configured name when the claim answer lacks them (as the seed)', async () => {
    h = await startHarness({ settings: { runnerName: 'named-here' } });
    const tenant = h.emu.admin.defaultTenantId();
    h.core.settings.update({ expectedTenantId: tenant });
    // A server whose claim answer carries only the credentials.
    h.emu.admin.setConfig({ pairingClaimCredentialsOnly: true });
    const state = await h.invoke<PairingState>('pairing:start');
    if (state.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(state.userCode);
    const snapshot = await paired(h);
    expect(snapshot.identity).toMatchObject({ tenantId: tenant, name: 'named-here' });
  });
});
