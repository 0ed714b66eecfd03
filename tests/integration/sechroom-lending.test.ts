import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LendingView } from '../../shared/lending';
import { startSechroomHost, type SechroomHost } from './sechroom-host';

// The lending terms hold a Sechroom profile as they hold a Rost one: the real core with a
// Sechroom instance on the emulator's Work Layer (the scripted codex app-server, a git
// checkout with an origin). Outside the machine's lending hours, or the profile's own
// (`profileLendSchedule`, which narrows the machine's), the tasks offered to it are not
// leased and the profile says why; once the hours open it leases and completes them all.

let host: SechroomHost | null = null;
afterEach(async () => {
  await host?.close();
  host = null;
});

/** The emulator's own state, asked until it holds (no event is sent for an offer read). */
const until = (check: () => void) => vi.waitFor(check, { timeout: 20_000, interval: 50 });

describe('lending terms on a Sechroom profile', () => {
  it('outside the lending hours no offered task is leased and the profile says why; once they open all are completed', async () => {
    host = await startSechroomHost({
      scenario: { turn: 'closeout-on-nudge' },
      beforeConfigure: (harness) => harness.invoke('settings:update', { profile: 'work', profileLendSchedule: 'never' }),
    });
    const { h, emu } = host;
    const held = await h.waitForEvent('runner:status', (s) => s.profile === 'work' && s.state === 'idle' && s.held !== undefined, 20_000);
    expect(held).toMatchObject({ held: "Outside this profile's hours — no hour of the week is open" });
    // The machine's own terms let work in: the hold is the profile's alone.
    expect(await h.invoke<LendingView>('lending:get')).toMatchObject({ holds: [] });

    const tasks = [1, 2].map((n) => emu.sechroom.createTask({ title: `Lent ${n}`, objective: `Do ${n}.` } as never));
    // Both are offered to the instance, and its admission holds: not one lease.
    await until(() => expect(emu.sechroom.listOffers({}).length).toBeGreaterThanOrEqual(2));
    expect(emu.sechroom.listLeases({})).toEqual([]);

    const openedAt = Date.now();
    // Each finished turn comes in an update of its own: wait for both from before the hours open.
    const both = Promise.all(
      [1, 2].map((n) => h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.plane === 'sechroom' && t.title === `Lent ${n}`), 30_000)),
    );
    await h.invoke('settings:update', { profile: 'work', profileLendSchedule: '' });
    await both;
    await until(() => expect(tasks.map((t) => emu.sechroom.listCompletions({ memory_id: t.memoryId }).length)).toEqual([1, 1]));
    const leases = emu.sechroom.listLeases({});
    expect(leases).toHaveLength(2);
    for (const lease of leases) expect(Date.parse(lease.createdAt)).toBeGreaterThanOrEqual(openedAt);
  });
});
