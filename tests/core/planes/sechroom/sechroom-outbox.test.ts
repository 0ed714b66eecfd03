import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectorError } from '../../../../main/core/connectors/errors';
import { AuthExpiredError } from '../../../../main/core/planes/sechroom/sechroom-auth';
import { SechroomOutbox, type OutboxDelivery } from '../../../../main/core/planes/sechroom/sechroom-outbox';
import { rig, type Rig } from './sechroom-harness';

let r: Rig | null = null;
afterEach(async () => {
  await r?.close();
  r = null;
});

/** Lets a delivery pass that a timer started run to its end (the fake client answers at once). */
async function turns(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

const completion = (leaseId: string) => ({
  kind: 'complete' as const,
  instanceId: 'exi_1',
  memoryId: 'mem_abc',
  leaseId,
  input: {
    executorInstanceId: 'exi_1',
    claimToken: 'sct_secret',
    tokenVersion: 1,
    verdict: 'pass' as const,
    text: 'done',
    source: 'lane',
    title: 'T — driven closeout',
  },
});

describe('Sechroom outbox', () => {
  it('keeps an entry through an outage, retries with backoff, and sets a damaged file aside', async () => {
    r = await rig();
    const dir = path.join(r.tmp, 'outbox');
    const delivered: OutboxDelivery[] = [];
    let calls = 0;
    const client = {
      complete: async () => {
        if (++calls < 3) throw new ConnectorError('network', 'connection refused');
        return { outcome: 'Completed' as const, completionMemoryId: 'mem_done', repeated: false };
      },
      telemetry: async () => ({ eventCount: 1 }),
    };
    const outbox = new SechroomOutbox({ dir, client, clock: r.clock, log: r.logs.log, random: () => 0, onDelivered: (d) => delivered.push(d) });
    await outbox.load();
    await writeFile(path.join(dir, 'junk.json'), '{"kind":"complete"');
    await outbox.load();
    expect((await readdir(dir)).sort()).toEqual(['junk.json.damaged']);

    outbox.start();
    await outbox.enqueue(completion('lse_1'));
    // Enqueueing the same lease again keeps the one entry.
    await outbox.enqueue(completion('lse_1'));
    expect(outbox.pending).toBe(1);
    await r.pump(
      () => delivered.length === 1,
      500,
      () => true,
    );
    expect(calls).toBe(3);
    expect(delivered[0]).toMatchObject({ outcome: 'completed', completionMemoryId: 'mem_done' });
    expect(outbox.pending).toBe(0);
    expect((await readdir(dir)).sort()).toEqual(['junk.json.damaged']);
    expect(JSON.stringify(r.logs.entries)).not.toContain('sct_secret');
  });

  it('waits for a new sign-in on an auth failure instead of dropping the completion, and drops a refused one with the seed line', async () => {
    r = await rig();
    let mode: 'auth' | 'expired' = 'auth';
    const client = {
      complete: async () => {
        if (mode === 'auth')
          throw new AuthExpiredError(
            'SECHROOM_TOKEN was rejected (401) and cannot be refreshed — mint a fresh bearer and re-export SECHROOM_TOKEN.',
            'new_token',
          );
        throw new ConnectorError('rejected', 'POST /me/executor-task-leases/lse_2/complete failed (409 lease_expired)', 409, 'lease_expired');
      },
      telemetry: async () => ({ eventCount: 1 }),
    };
    const expired: ConnectorError[] = [];
    const delivered: OutboxDelivery[] = [];
    const outbox = new SechroomOutbox({
      dir: path.join(r.tmp, 'ob'),
      client,
      clock: r.clock,
      log: r.logs.log,
      onAuthExpired: (e) => expired.push(e),
      onDelivered: (d) => delivered.push(d),
    });
    await outbox.load();
    outbox.start();
    await outbox.enqueue(completion('lse_2'));
    await outbox.flush();
    expect(expired).toHaveLength(1);
    expect(outbox.pending).toBe(1);
    mode = 'expired';
    outbox.resume();
    await outbox.flush();
    expect(outbox.pending).toBe(0);
    expect(delivered[0]).toMatchObject({
      outcome: 'rejected',
      message:
        'COMPLETE REJECTED for mem_abc (POST /me/executor-task-leases/lse_2/complete failed (409 lease_expired)) — task will re-offer; investigate the heartbeat gap.',
    });
  });

  it('a new entry queued while the outbox backs off waits for the retry: no extra attempt at once, the backoff keeps growing', async () => {
    r = await rig();
    const attempts: number[] = [];
    const client = {
      complete: async () => {
        attempts.push(r!.clock.now());
        if (attempts.length < 3) throw new ConnectorError('server', 'POST complete failed (503)', 503);
        return { outcome: 'Completed' as const, completionMemoryId: 'mem_done', repeated: false };
      },
      telemetry: async () => ({ eventCount: 1 }),
    };
    const outbox = new SechroomOutbox({ dir: path.join(r.tmp, 'outbox'), client, clock: r.clock, log: r.logs.log, random: () => 0.5 });
    await outbox.load();
    outbox.start();
    await outbox.enqueue(completion('lse_3'));
    await r.clock.advanceAsync(0);
    await turns();
    expect(attempts).toHaveLength(1);
    // The turn's telemetry follows its failed completion into the outbox.
    await outbox.enqueue({
      kind: 'telemetry',
      instanceId: 'exi_1',
      memoryId: 'mem_abc',
      leaseId: 'lse_3',
      decompositionId: 'dec_1',
      events: [{ taskId: 'mem_abc', kind: 'Terminal', tokensIn: 1, tokensOut: 1, contextUsed: 1, contextWindow: 10 }],
    });
    await r.clock.advanceAsync(10);
    expect(attempts).toHaveLength(1);
    // Retries 0.75 s, then 1.25 s apart (mid-jitter of 1 s doubling), the new entry riding along.
    await r.clock.advanceAsync(740);
    await turns();
    expect(attempts).toHaveLength(2);
    await r.clock.advanceAsync(1_000);
    await turns();
    expect(attempts).toHaveLength(2);
    await r.clock.advanceAsync(300);
    await turns();
    expect(attempts).toHaveLength(3);
  });
});
