import { afterEach, describe, expect, it } from 'vitest';
import { sechroom } from '../../shared/protocol';
import { launchSechroom, type SechroomEmu } from './sechroom-helpers';

let emu: SechroomEmu;
afterEach(() => emu?.close());

type Request = (path: string, init?: { method?: string; body?: string }) => Promise<any>;

/**
 * The seed client's claim step as sechroom-protocol.md B4/B6.2 describes it: read the offers,
 * wait the head's suggestedClaimDelayMs, claim-next with `executor-run:<head>`, and on any
 * outcome other than Claimed/AlreadyHeld/NoOffer try the direct claim for each offer in order.
 */
async function seedClaim(request: Request, instanceId: string, sleep: (ms: number) => Promise<void>, beforeClaimNext = async () => {}) {
  const base = `/me/executor-instances/${encodeURIComponent(instanceId)}`;
  const offers = sechroom.DispatchOffersSchema.parse(await request(`${base}/dispatch-offers`));
  if (!offers.length) return null;
  const head = offers[0]!;
  if (head.suggestedClaimDelayMs > 0) await sleep(head.suggestedClaimDelayMs);
  await beforeClaimNext();
  const next = sechroom.ClaimResultSchema.parse(
    await request(`${base}/dispatch-offers/claim-next`, { method: 'POST', body: JSON.stringify({ idempotencyKey: `executor-run:${head.generationId}` }) }),
  );
  if (next.outcome === 'Claimed' || next.outcome === 'AlreadyHeld') return { ...next, via: 'claim-next' };
  if (next.outcome === 'NoOffer') return null;
  for (const offer of offers) {
    const direct = sechroom.ClaimResultSchema.parse(
      await request('/me/executor-task-claims', { method: 'POST', body: JSON.stringify({ generationId: offer.generationId, executorInstanceId: instanceId }) }),
    );
    if (direct.outcome === 'Claimed' || direct.outcome === 'AlreadyHeld') return { ...direct, via: 'direct' };
  }
  return null;
}

function requester(): Request {
  return async (path, init = {}) => {
    const res = await emu.wl(path, {
      ...(init.method !== undefined ? { method: init.method } : {}),
      ...(init.body !== undefined ? { raw: init.body } : {}),
      headers: init.body ? { 'content-type': 'application/json' } : {},
    });
    if (res.status !== 200) throw new Error(`${init.method ?? 'GET'} ${path} failed (${res.status}): ${res.text}`);
    return res.json;
  };
}

describe('the seed client’s claim algorithm against the emulator', () => {
  it('two competing instances take every task exactly once between them', async () => {
    emu = await launchSechroom();
    const a = await emu.register('a');
    const b = await emu.register('b');
    for (const title of ['one', 'two', 'three']) emu.sechroom.createTask({ title });
    // The stagger is honoured as a yield (its value is asserted in sechroom-dispatch), so the two loops interleave.
    const yieldOnce = () => new Promise<void>((resolve) => setImmediate(resolve));
    const loop = async (id: string) => {
      const got: string[] = [];
      for (;;) {
        const claim = await seedClaim(requester(), id, yieldOnce);
        if (!claim) return got;
        got.push(claim.lease!.memoryId);
      }
    };
    const [gotA, gotB] = await Promise.all([loop(a.id), loop(b.id)]);
    const all = [...gotA, ...gotB];
    expect(new Set(all).size).toBe(3);
    expect(all).toHaveLength(3);
    expect(
      emu.sechroom
        .listLeases()
        .map((l) => l.memoryId)
        .sort(),
    ).toEqual([...all].sort());
  });

  it('falls through to the direct claim when the head was taken between the offer read and claim-next', async () => {
    emu = await launchSechroom();
    const a = await emu.register('a');
    const b = await emu.register('b');
    const t1 = emu.sechroom.createTask({ title: 'one' });
    const t2 = emu.sechroom.createTask({ title: 'two' });
    const claim = await seedClaim(
      requester(),
      b.id,
      async () => {},
      async () => {
        await emu.claimHead(a.id);
      },
    );
    expect(claim).toMatchObject({ outcome: 'Claimed', via: 'direct', lease: { memoryId: t2.memoryId } });
    expect(emu.sechroom.listLeases({ memory_id: t1.memoryId })[0]!.executorInstanceId).toBe(a.id);
  });
});
