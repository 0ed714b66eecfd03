// The window in Chromium (Playwright, /usr/bin/chromium) on the built headless host with
// 10,000 finished turns on disk: navigation → the first history row painted, the longest
// task at load, and, while the host runs turns whose output streams into the open Turns
// view, the longest task and the largest gap between animation frames.
//
// Times are taken in the page, by the page's own clock: a MutationObserver sees the first
// history row inserted, and the moment after the next frame (rAF, then a task) is when it
// was painted. Playwright's `waitFor` would see it only at its next poll (it retries after
// 20, 50, 100, 100 and then every 500 ms, plus a round trip each), which is not the page.
import { chromium, type Page } from '@playwright/test';
import type { RunningEmulator } from '../../emulator';

/** The host's one-time window addresses: each call gives a new one. */
export type NextAddress = () => Promise<string>;

export interface WindowCost {
  /** Navigation → the first history row painted (Turns view, 10,000 rows on disk). */
  dataOnScreenMs: number[];
  /** Longest task from navigation to 500 ms after the first rows were painted. */
  longestLoadTaskMs: number;
  /** Longest task while the host ran the stream of turns with the Turns view open. */
  longestUpdateTaskMs: number;
  /** Largest gap between two animation frames in that stream. */
  largestFrameGapMs: number;
  /** Frames in that stream, and how many came more than 20 ms after the one before. */
  frames: number;
  lateFrames: number;
  /** The stream: turns run, at most this many at once, each this long, over this many seconds; the most the view showed running. */
  stream: { turns: number; atOnce: number; turnMs: number; seconds: number; runningSeen: number };
}

export interface WindowOptions {
  loads: number;
  /** Turns enqueued at once for the stream; the host runs `atOnce` of them at a time. */
  streamTurns: number;
  atOnce: number;
  streamTurnMs: number;
}

/** How often the stream runtime (stream-runtime.mjs) prints a line. */
const LINE_EVERY_MS = 20;

interface PageProbe {
  rowAt: number | null;
  runningMax: number;
  tasks: [start: number, duration: number][];
  frames: number[];
}

/**
 * Runs in the page before its own scripts: long tasks, animation frames and the first
 * row's paint. Plain text, not a function: tsx would wrap its inner functions in a helper
 * the page does not have.
 */
const PROBE = `(() => {
  const probe = { rowAt: null, tasks: [], frames: [] };
  window.__probe = probe;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) probe.tasks.push([entry.startTime, entry.duration]);
  }).observe({ type: 'longtask', buffered: true });
  const rows = new MutationObserver(() => {
    if (!document.querySelector('[data-testid="history-row"]')) return;
    rows.disconnect();
    requestAnimationFrame(() => setTimeout(() => (probe.rowAt = performance.now()), 0));
  });
  rows.observe(document, { childList: true, subtree: true });
  // The most turns the view showed running at once (a check that the stream is what it says).
  probe.runningMax = 0;
  new MutationObserver(() => {
    probe.runningMax = Math.max(probe.runningMax, document.querySelectorAll('[data-testid="active-turn"]').length);
  }).observe(document, { childList: true, subtree: true });
  function frame(t) {
    probe.frames.push(t);
    if (probe.frames.length > 20000) probe.frames.splice(0, 10000);
    requestAnimationFrame(frame);
  }
  requestAnimationFrame(frame);
})();`;

async function openTurns(page: Page, url: string): Promise<number> {
  await page.addInitScript({ content: PROBE });
  await page.goto(`${url}#turns`);
  const handle = await page.waitForFunction(() => (window as unknown as { __probe: PageProbe }).__probe.rowAt, null, { timeout: 30_000 });
  return (await handle.jsonValue()) as number;
}

const probeOf = (page: Page) => page.evaluate(() => (window as unknown as { __probe: PageProbe }).__probe);
const pageNow = (page: Page) => page.evaluate(() => performance.now());
/** The moment the page's main thread first goes idle from now (requestIdleCallback). */
const pageIdle = (page: Page) => page.evaluate(() => new Promise<number>((resolve) => requestIdleCallback(() => resolve(performance.now()))));
/** Resolves after the page's next frame was painted (a frame, then a task after it). */
const nextPaint = (page: Page) => page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));

/** A frame this much later than the one before (at 60 Hz) means at least one was skipped. */
const LATE_FRAME_MS = 20;

/**
 * The longest of the tasks that began in [from, to] (0: none over 50 ms, the least a
 * `longtask` entry is), the largest gap between frames in it, and how many frames came late.
 */
function within(probe: PageProbe, from: number, to: number): { longestTaskMs: number; largestGapMs: number; frames: number; lateFrames: number } {
  const longestTaskMs = Math.max(0, ...probe.tasks.filter(([start]) => start >= from && start <= to).map(([, d]) => d));
  const frames = probe.frames.filter((t) => t >= from && t <= to);
  let largestGapMs = 0;
  let lateFrames = 0;
  for (let i = 1; i < frames.length; i++) {
    const gap = frames[i]! - frames[i - 1]!;
    largestGapMs = Math.max(largestGapMs, gap);
    if (gap > LATE_FRAME_MS) lateFrames += 1;
  }
  return { longestTaskMs, largestGapMs, frames: frames.length, lateFrames };
}

/**
 * A stream of updates with the Turns view open on 10,000 rows: `streamTurns` turns
 * enqueued at once, `atOnce` running at a time, each printing a line every 20 ms for
 * `streamTurnMs`; every finished one lands on top of the history. Measured from the
 * first enqueue to the last result accepted, plus the frames that show it.
 */
async function stream(
  page: Page,
  emu: RunningEmulator,
  runnerId: string,
  options: WindowOptions,
): Promise<ReturnType<typeof within> & { seconds: number; runningSeen: number }> {
  const topBefore = await page.getByTestId('history-row').first().getAttribute('data-turn-id');
  // The emulator lets one runner on the default model account hold `caps.defaultAccount` units at once.
  const accountCap = emu.admin.setConfig({}).caps.defaultAccount;
  emu.admin.setConfig({ caps: { defaultAccount: options.atOnce } });
  const from = await pageNow(page);
  const t0 = performance.now();
  const ids = new Set<string>();
  for (let i = 0; i < options.streamTurns; i++) {
    ids.add(
      emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: `stream ms=${options.streamTurnMs} every=${LINE_EVERY_MS}`, target_runner_id: runnerId }).id,
    );
  }
  await Promise.all([...ids].map((id) => emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === id, { timeoutMs: 120_000 })));
  const seconds = (performance.now() - t0) / 1000;
  emu.admin.setConfig({ caps: { defaultAccount: accountCap } });
  // The last turn's row on top of the history, painted: the stream reached the window.
  await page.waitForFunction((top) => document.querySelector('[data-testid="history-row"]')?.getAttribute('data-turn-id') !== top, topBefore);
  await nextPaint(page);
  const to = await pageNow(page);
  const probe = await probeOf(page);
  return { ...within(probe, from, to), seconds, runningSeen: probe.runningMax };
}

export async function measureWindow(emu: RunningEmulator, runnerId: string, nextAddress: NextAddress, options: WindowOptions): Promise<WindowCost> {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
  try {
    const dataOnScreenMs: number[] = [];
    let longestLoadTaskMs = 0;
    for (let i = 0; i < options.loads; i++) {
      const page = await browser.newPage();
      const rowAt = await openTurns(page, await nextAddress());
      dataOnScreenMs.push(rowAt);
      // Load lasts until the page first goes idle after the first rows: its long tasks until then count.
      const idleAt = await pageIdle(page);
      longestLoadTaskMs = Math.max(longestLoadTaskMs, within(await probeOf(page), 0, idleAt).longestTaskMs);
      await page.close();
    }
    const page = await browser.newPage();
    await openTurns(page, await nextAddress());
    await pageIdle(page); // the load settled: what follows is updates only
    const updates = await stream(page, emu, runnerId, options);
    await page.close();
    return {
      dataOnScreenMs,
      longestLoadTaskMs,
      longestUpdateTaskMs: updates.longestTaskMs,
      largestFrameGapMs: updates.largestGapMs,
      frames: updates.frames,
      lateFrames: updates.lateFrames,
      stream: { turns: options.streamTurns, atOnce: options.atOnce, turnMs: options.streamTurnMs, seconds: updates.seconds, runningSeen: updates.runningSeen },
    };
  } finally {
    await browser.close();
  }
}
