import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResultRequest } from '../../../../shared/protocol';
import type { RunnerConnector } from '../../../../main/core/planes/rost/connector';
import { ConnectorError } from '../../../../main/core/connectors/errors';
import { ResultOutbox } from '../../../../main/core/planes/rost/outbox';
import { FakeClock } from '../../../helpers/fake-clock';
import { testLogging } from '../../../helpers/test-logger';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

type Answer = 'accepted' | 'already_recorded' | ConnectorError;

function setup(answers: Answer[], dir = mkdtempSync(path.join(os.tmpdir(), 'outbox-'))) {
  dirs.push(dir);
  const clock = new FakeClock();
  const delivered: { key: string; at: number }[] = [];
  let revoked = 0;
  const connector = {
    report: async (_c: unknown, _u: unknown, result: ResultRequest) => {
      const a = answers.shift() ?? 'accepted';
      if (a instanceof ConnectorError) throw a;
      delivered.push({ key: result.idempotency_key ?? '', at: clock.now() });
      return a;
    },
  } as unknown as RunnerConnector;
  const outbox = new ResultOutbox({
    dir,
    clock,
    log: testLogging().log,
    random: () => 0.5,
    target: () => ({ connector, credentials: { runnerId: 'r1', secret: 's' } }),
    onRevoked: () => revoked++,
  });
  return { clock, outbox, delivered, dir, revoked: () => revoked };
}

const entry = (id: string) => ({
  runnerId: 'r1',
  unit: { id, kind: 'turn_execution' as const },
  result: { status: 'succeeded' as const, summary: 'ok', idempotency_key: `${id}:1` },
});

describe('result outbox', () => {
  it('is on disk before delivery and gone once delivered', async () => {
    const { clock, outbox, delivered, dir } = setup([]);
    await outbox.load();
    // Not started: nothing is sent, but the result is durable.
    await outbox.enqueue(entry('u1'));
    expect(readdirSync(dir)).toHaveLength(1);
    outbox.start();
    await clock.advanceAsync(10);
    await outbox.settled();
    expect(delivered.map((d) => d.key)).toEqual(['u1:1']);
    expect(readdirSync(dir)).toHaveLength(0);
  });

  it('sends a new result at once, beside its write, and leaves no file once it is delivered', async () => {
    const { outbox, delivered, dir } = setup([]);
    await outbox.load();
    outbox.start();
    const enqueued = outbox.enqueue(entry('u9'));
    // The POST is under way before the write (and no timer was needed to start it).
    await Promise.resolve();
    expect(delivered.map((d) => d.key)).toEqual(['u9:1']);
    await enqueued;
    await outbox.settled();
    // Removed after its write landed, so no file outlives the delivery.
    expect(readdirSync(dir)).toEqual([]);
    expect(outbox.pending).toBe(0);
  });

  it('survives a restart: a new outbox over the same folder delivers what the old one kept', async () => {
    const first = setup([new ConnectorError('network', 'down')]);
    await first.outbox.load();
    first.outbox.start();
    await first.outbox.enqueue(entry('u2'));
    await first.clock.advanceAsync(10);
    await first.outbox.settled();
    expect(first.delivered).toHaveLength(0);
    first.outbox.stop();
    // The process "dies" here; the file is what is left.
    const second = setup([], first.dir);
    await second.outbox.load();
    expect(second.outbox.pending).toBe(1);
    second.outbox.start();
    await second.clock.advanceAsync(10);
    await second.outbox.settled();
    expect(second.delivered.map((d) => d.key)).toEqual(['u2:1']);
  });

  it('treats 409 already_recorded as delivered', async () => {
    const { clock, outbox, dir } = setup(['already_recorded']);
    await outbox.load();
    outbox.start();
    await outbox.enqueue(entry('u3'));
    await clock.advanceAsync(10);
    await outbox.settled();
    expect(outbox.pending).toBe(0);
    expect(readdirSync(dir)).toHaveLength(0);
  });

  it('retries with capped exponential backoff until it goes through', async () => {
    const down = () => new ConnectorError('server', '503', 503);
    const { clock, outbox, delivered } = setup([down(), down(), down(), down(), 'accepted']);
    await outbox.load();
    outbox.start();
    const t0 = clock.now();
    await outbox.enqueue(entry('u4'));
    await clock.advanceAsync(60_000);
    await outbox.settled();
    expect(delivered).toHaveLength(1);
    // Retries 0.75 s, 1.25 s, 2.25 s and 4.25 s apart (mid-jitter of 1 s doubling).
    expect(delivered[0]!.at - t0).toBe(750 + 1_250 + 2_250 + 4_250);
  });

  it('stops and reports a revoked runner on 401, keeping the result', async () => {
    const { clock, outbox, revoked } = setup([new ConnectorError('unauthorized', '401', 401)]);
    await outbox.load();
    outbox.start();
    await outbox.enqueue(entry('u5'));
    await clock.advanceAsync(10);
    await outbox.settled();
    expect(revoked()).toBe(1);
    expect(outbox.pending).toBe(1);
  });

  it('refuses a result for a unit the control plane does not know (404 with its error code) and delivers the next one in the same pass', async () => {
    // A restart can hold a result the server will never take ahead of one it will: CI saw
    // such a head entry retried with backoff while the other waited behind it for 40 s.
    const unknown = new ConnectorError('not_found', 'unknown unit (404)', 404, 'not_found');
    const { clock, outbox, delivered } = setup([unknown, 'accepted']);
    await outbox.load();
    await outbox.enqueue(entry('gone'));
    await outbox.enqueue(entry('u6'));
    outbox.start();
    await clock.advanceAsync(10);
    await outbox.settled();
    expect(delivered.map((d) => d.key)).toEqual(['u6:1']);
    expect(outbox.pending).toBe(0);
  });

  it('keeps a result whose 404 has no error code (a proxy or a wrong address, not the control plane) and retries it', async () => {
    const bare = new ConnectorError('not_found', 'not found (404)', 404);
    const { clock, outbox, delivered } = setup([bare, 'accepted']);
    await outbox.load();
    outbox.start();
    await outbox.enqueue(entry('u7'));
    await clock.advanceAsync(10);
    await outbox.settled();
    expect(outbox.pending).toBe(1);
    await clock.advanceAsync(5_000);
    await outbox.settled();
    expect(delivered.map((d) => d.key)).toEqual(['u7:1']);
  });

  it('one result failing on its own (a 500 for it) does not hold back the others; they go out in the same pass', async () => {
    const { clock, outbox, delivered } = setup([new ConnectorError('server', '500', 500), 'accepted', 'accepted']);
    await outbox.load();
    await outbox.enqueue(entry('a'));
    await outbox.enqueue(entry('b'));
    outbox.start();
    await clock.advanceAsync(10);
    await outbox.settled();
    expect(delivered.map((d) => d.key)).toEqual(['b:1']);
    await clock.advanceAsync(5_000);
    await outbox.settled();
    expect(delivered.map((d) => d.key)).toEqual(['b:1', 'a:1']);
  });

  it('an unreachable control plane ends the pass at the first failure (one try, not one per result)', async () => {
    const { clock, outbox, delivered } = setup([new ConnectorError('network', 'down'), 'accepted', 'accepted']);
    await outbox.load();
    await outbox.enqueue(entry('c'));
    await outbox.enqueue(entry('d'));
    outbox.start();
    await clock.advanceAsync(10);
    await outbox.settled();
    expect(delivered).toHaveLength(0);
    await clock.advanceAsync(5_000);
    await outbox.settled();
    expect(delivered.map((d) => d.key)).toEqual(['c:1', 'd:1']);
  });
});
