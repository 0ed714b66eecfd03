import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DurableOutbox, type DeliveryTry } from '../../../main/core/sessions/durable-outbox';
import { FakeClock } from '../../helpers/fake-clock';
import { testLogging } from '../../helpers/test-logger';

const Entry = z.object({ key: z.string(), n: z.number() });
type Entry = z.infer<typeof Entry>;

/** An outbox over a temp folder whose courier answers from a script, one answer per try. */
async function outbox(answers: Record<string, DeliveryTry[]>, o: { besideWrite?: boolean; dir?: string } = {}) {
  const dir = o.dir ?? (await mkdtemp(path.join(os.tmpdir(), 'rt-outbox-')));
  const clock = new FakeClock();
  const { log, entries: lines } = testLogging();
  const tries: string[] = [];
  const box = new DurableOutbox<Entry>({
    dir,
    schema: Entry,
    keyOf: (e) => e.key,
    noun: 'a test entry',
    retryLine: 'delivery failed; will retry',
    clock,
    log,
    // The top of each jitter range: the delays are the policy's ceilings, 1 s, 2 s, …
    random: () => 1,
    deliverBesideWrite: o.besideWrite ?? false,
    courier: {
      target: () => true,
      deliver: (entry) => {
        tries.push(entry.key);
        return Promise.resolve(answers[entry.key]?.shift() ?? { outcome: 'delivered' });
      },
    },
  });
  /** Moves the clock, then waits for the pass it started (its file work is real I/O). */
  const run = async (ms: number) => {
    await clock.advanceAsync(ms);
    await box.settled();
  };
  return { box, dir, clock, tries, lines, run };
}

const files = async (dir: string) => (await readdir(dir)).filter((n) => n.endsWith('.json'));
const retry = (holdsOthers: boolean): DeliveryTry => ({ outcome: 'retry', holdsOthers, details: {} });

describe('the durable outbox both planes share', () => {
  it('an entry is on disk before its delivery, and gone from disk once delivered', async () => {
    const { box, dir, tries, run } = await outbox({});
    await box.enqueue({ key: 'a', n: 1 });
    expect(await files(dir)).toHaveLength(1);
    box.start();
    await run(0);
    expect(tries).toEqual(['a']);
    expect(await files(dir)).toHaveLength(0);
    expect(box.pending).toBe(0);
  });

  it('a restart delivers what the last run left, and sets a damaged file aside', async () => {
    const first = await outbox({});
    await first.box.enqueue({ key: 'kept', n: 1 });
    await writeFile(path.join(first.dir, 'broken.json'), '{"key":');
    const second = await outbox({}, { dir: first.dir });
    await second.box.load();
    expect(second.box.list()).toEqual([{ key: 'kept', n: 1 }]);
    expect((await readdir(first.dir)).sort()).toEqual(['a2VwdA.json', 'broken.json.damaged']);
    expect(second.lines.some((l) => l.msg === 'a test entry is damaged and was set aside')).toBe(true);
  });

  it('a failure of one entry leaves the others to go in the same pass; an unreachable plane ends the pass', async () => {
    const own = await outbox({ a: [retry(false)] });
    await own.box.enqueue({ key: 'a', n: 1 });
    await own.box.enqueue({ key: 'b', n: 2 });
    own.box.start();
    await own.clock.advanceAsync(0);
    expect(own.tries).toEqual(['a', 'b']);
    expect(own.box.list().map((e) => e.key)).toEqual(['a']);

    const down = await outbox({ a: [retry(true)] });
    await down.box.enqueue({ key: 'a', n: 1 });
    await down.box.enqueue({ key: 'b', n: 2 });
    down.box.start();
    await down.clock.advanceAsync(0);
    expect(down.tries).toEqual(['a']);
  });

  it('retries after a capped exponential backoff, on the clock', async () => {
    const { box, tries, run } = await outbox({ a: [retry(true), retry(true)] });
    await box.enqueue({ key: 'a', n: 1 });
    box.start();
    await run(0);
    expect(tries).toEqual(['a']);
    await run(999);
    expect(tries).toHaveLength(1);
    await run(1);
    expect(tries).toHaveLength(2);
    await run(1_999);
    expect(tries).toHaveLength(2);
    await run(1);
    expect(tries).toHaveLength(3);
    expect(box.pending).toBe(0);
  });

  it('refused credentials stop every try until resume()', async () => {
    const { box, clock, tries } = await outbox({ a: [{ outcome: 'suspend' }] });
    await box.enqueue({ key: 'a', n: 1 });
    box.start();
    await clock.advanceAsync(0);
    await clock.advanceAsync(600_000);
    await box.flush();
    expect(tries).toEqual(['a']);
    box.resume();
    await clock.advanceAsync(0);
    expect(tries).toEqual(['a', 'a']);
    expect(box.pending).toBe(0);
  });

  it('a dropped entry goes, and what the courier says after runs once it is gone', async () => {
    let pendingAfter = -1;
    const answers: Record<string, DeliveryTry[]> = {};
    const { box, run } = await outbox(answers);
    answers.a = [{ outcome: 'dropped', after: () => (pendingAfter = box.pending) }];
    await box.enqueue({ key: 'a', n: 1 });
    box.start();
    await run(0);
    expect(pendingAfter).toBe(0);
  });

  it('beside the write: a new entry ends the backoff; write first: it joins the retry already set', async () => {
    const beside = await outbox({ a: [retry(true)] }, { besideWrite: true });
    beside.box.start();
    await beside.box.enqueue({ key: 'a', n: 1 });
    await beside.box.settled();
    await beside.box.enqueue({ key: 'b', n: 2 });
    await beside.box.settled();
    expect(beside.tries).toEqual(['a', 'a', 'b']);

    const first = await outbox({ a: [retry(true)] });
    first.box.start();
    await first.box.enqueue({ key: 'a', n: 1 });
    await first.run(0);
    await first.box.enqueue({ key: 'b', n: 2 });
    await first.run(0);
    expect(first.tries).toEqual(['a']);
    await first.run(1_000);
    expect(first.tries).toEqual(['a', 'a', 'b']);
  });
});
