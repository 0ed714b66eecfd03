import { describe, expect, it } from 'vitest';
import { PERSISTED_TAIL_CHARS } from '../../main/core/work/lean-turn';
import { TurnRegistry } from '../../main/core/work/turn-registry';
import { finishedTurn, historyStore } from '../helpers/history-store';
import { appendHistoryPage, applyTurnsUpdate, initialTurns, turnsFromPage } from '../../renderer/src/store/turns-slice';
import { commands } from '../../shared/contract';
import { HEADLINE_CHARS, TurnRowSchema, TURNS_PAGE_MAX } from '../../shared/turns';

const turn = finishedTurn;

/** 250 finished turns, t0 newest. */
async function seeded(): Promise<TurnRegistry> {
  return new TurnRegistry(() => {}, await historyStore(Array.from({ length: 250 }, (_, i) => turn(`t${i}`))));
}

describe('turns:list in pages', () => {
  it('answers a window from the offset, newest first, with the total, and rows carry no tail or summary', async () => {
    const r = await seeded();
    r.add(turn('live', { phase: 'running', endedAt: null, outputTail: 'streaming' }));
    const first = r.page(0, 100);
    expect(first.total).toBe(250);
    expect(first.offset).toBe(0);
    expect(first.history.map((t) => t.id)).toEqual(Array.from({ length: 100 }, (_, i) => `t${i}`));
    expect(first.active.map((t) => [t.id, t.outputTail])).toEqual([['live', 'streaming']]);
    for (const row of first.history) {
      expect(row).not.toHaveProperty('outputTail');
      expect(row).not.toHaveProperty('summary');
      expect(TurnRowSchema.strict().safeParse(row).success).toBe(true);
    }
    expect(first.history[0]!.headline).toBe('summary of t0');
    const last = r.page(200, 100);
    expect(last.history.map((t) => t.id)).toEqual(Array.from({ length: 50 }, (_, i) => `t${200 + i}`));
    expect(r.page(250, 100).history).toEqual([]);
    expect(r.page(300, 100).total).toBe(250);
  });

  it('a new finished turn goes on top and moves the later windows down by one', async () => {
    const r = await seeded();
    r.addFinished(turn('new'));
    const page = r.page(0, 2);
    expect(page.total).toBe(251);
    expect(page.history.map((t) => t.id)).toEqual(['new', 't0']);
    expect(r.page(100, 1).history[0]!.id).toBe('t99');
  });

  it('turns:detail gives the whole record of a running or finished turn, and null for one not kept', async () => {
    const r = await seeded();
    r.add(turn('live', { phase: 'running', endedAt: null, outputTail: 'streaming' }));
    expect(await r.detail('t42')).toMatchObject({ id: 't42', outputTail: 'tail of t42', summary: 'summary of t42\nsecond line' });
    expect((await r.detail('live'))?.outputTail).toBe('streaming');
    expect(await r.detail('gone')).toBeUndefined();
  });

  it("keeps only the end of a finished turn's output in memory, as on disk", async () => {
    const r = new TurnRegistry(() => {}, await historyStore());
    r.add(turn('a', { phase: 'running', endedAt: null, outputTail: 'x'.repeat(50_000) }));
    r.finish('a', { phase: 'succeeded', outputTail: `${'x'.repeat(50_000)}END` });
    const kept = (await r.detail('a'))!.outputTail;
    expect(kept).toHaveLength(PERSISTED_TAIL_CHARS);
    expect(kept.endsWith('END')).toBe(true);
  });

  it('the headline is the first line of the summary, else of the reason, cut short', async () => {
    const r = new TurnRegistry(
      () => {},
      await historyStore([
        turn('a', { summary: null, reason: 'timed out\nafter 1800 s' }),
        turn('b', { summary: 'y'.repeat(1000) }),
        turn('c', { summary: null }),
      ]),
    );
    expect(r.page(0, 3).history.map((t) => t.headline)).toEqual(['timed out', 'y'.repeat(HEADLINE_CHARS), null]);
  });

  it('parses the input: offset and limit are optional, bounded integers; nothing else is taken', async () => {
    const input = commands['turns:list'].input;
    expect(input.safeParse(undefined).success).toBe(true);
    expect(input.safeParse({ offset: 100, limit: 100 }).success).toBe(true);
    expect(input.safeParse({ offset: -1 }).success).toBe(false);
    expect(input.safeParse({ limit: 0 }).success).toBe(false);
    expect(input.safeParse({ limit: TURNS_PAGE_MAX + 1 }).success).toBe(false);
    expect(input.safeParse({ limit: 1.5 }).success).toBe(false);
    expect(input.safeParse({ before: 'x' }).success).toBe(false);
    expect(commands['turns:detail'].input.safeParse({}).success).toBe(false);
  });
});

describe("the window's history pages", () => {
  it('appends the next window where the held rows end, skips copies, and keeps the count right through live updates', async () => {
    const r = await seeded();
    let slice = turnsFromPage(r.page(0, 100));
    expect([slice.history.length, slice.historyTotal]).toEqual([100, 250]);

    // A turn finishes while the list scrolls: it goes on top, the count grows by one.
    const fresh = turn('fresh');
    r.addFinished(fresh);
    slice = applyTurnsUpdate(slice, { active: [], removed: [], finished: [fresh] });
    expect(slice.history[0]).not.toHaveProperty('outputTail');
    expect([slice.history[0]!.id, slice.history.length, slice.historyTotal]).toEqual(['fresh', 101, 251]);

    // The next window, asked from where the held rows end, continues without a gap or a double.
    slice = appendHistoryPage(slice, r.page(slice.history.length, 100));
    expect(slice.history.map((t) => t.id)).toEqual(['fresh', ...Array.from({ length: 200 }, (_, i) => `t${i}`)]);
    expect(slice.historyTotal).toBe(251);

    // The same finished turn again (an answer raced the event) is counted once.
    slice = applyTurnsUpdate(slice, { active: [], removed: [], finished: [fresh] });
    expect(slice.historyTotal).toBe(251);
    expect(slice.history.filter((t) => t.id === 'fresh')).toHaveLength(1);

    // A window that overlaps the held rows (asked from an offset a live turn moved) adds only what is new.
    const again = appendHistoryPage(slice, r.page(150, 100));
    expect(again.history.map((t) => t.id).slice(201)).toEqual(Array.from({ length: 49 }, (_, i) => `t${200 + i}`));
    expect(new Set(again.history.map((t) => t.id)).size).toBe(again.history.length);
  });

  it('ignores a window that would leave a gap, or that comes before the first page', async () => {
    const r = await seeded();
    expect(appendHistoryPage(initialTurns, r.page(0, 100))).toBe(initialTurns);
    const slice = turnsFromPage(r.page(0, 100));
    expect(appendHistoryPage(slice, r.page(200, 50))).toBe(slice);
  });

  it('a delivery change to a held row updates that row in place', async () => {
    const r = await seeded();
    const slice = turnsFromPage(r.page(0, 10));
    const delivered = { ...turn('t3'), delivery: { state: 'delivered' as const, attempts: 1, since: '2026-12-01T12:01:00.000Z', reason: null } };
    const next = applyTurnsUpdate(slice, { active: [], removed: [], finished: [], updated: [delivered] });
    expect(next.history[3]).toMatchObject({ id: 't3', delivery: { state: 'delivered' } });
    expect(next.history[3]).not.toHaveProperty('outputTail');
    expect(next.historyTotal).toBe(250);
  });
});
