import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CapabilityDetector } from '../../../main/core/runner/capabilities';
import { CapabilitiesCache } from '../../../main/core/runner/capabilities-cache';
import type { CommandRunner } from '../../../main/core/exec/process-runner';
import { FakeClock } from '../../helpers/fake-clock';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A claude binary on disk, and a command runner whose answers are held until `release()`. */
function setup() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'caps-cache-'));
  dirs.push(dir);
  const claude = path.join(dir, 'claude');
  writeFileSync(claude, '#!/bin/sh\n');
  let release: () => void = () => undefined;
  let held = new Promise<void>((resolve) => (release = resolve));
  const cli = { version: '2.1.197', runs: 0 };
  const runner: CommandRunner = {
    which: async () => null,
    run: async () => {
      cli.runs++;
      await held;
      return { code: 0, stdout: `${cli.version} (Claude Code)\n`, stderr: '' };
    },
  };
  const detector = (binary = claude) =>
    new CapabilityDetector(
      runner,
      new FakeClock(0),
      { claude: binary, codex: 'codex' },
      {},
      undefined,
      new CapabilitiesCache(path.join(dir, 'capabilities.json')),
    );
  return {
    cli,
    claude,
    detector,
    release: () => release(),
    hold: () => {
      held = new Promise<void>((resolve) => (release = resolve));
    },
  };
}

describe('runtime detection remembered between runs', () => {
  it('a detection still probing when the host stops writes nothing into the data folder afterwards', async () => {
    const s = setup();
    const file = path.join(path.dirname(s.claude), 'capabilities.json');
    const detector = s.detector();
    const detecting = detector.get();
    await expect.poll(() => s.cli.runs).toBeGreaterThan(0);
    await detector.stop();
    s.release();
    await detecting;
    // The save went out beside the detection before: give it the turns a write takes.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(await new CapabilitiesCache(file).load()).toBeNull();
    // And nothing is probed after the stop.
    const runs = s.cli.runs;
    await detector.refresh();
    expect(s.cli.runs).toBe(runs);
  });

  it('a restart with another binary named (RUNNER_TRAY_CLAUDE_BIN changed) detects that one before the first turn, not the last run’s', async () => {
    const s = setup();
    const first = s.detector();
    const detecting = first.get();
    s.release();
    await detecting;
    await expect.poll(() => new CapabilitiesCache(path.join(path.dirname(s.claude), 'capabilities.json')).load()).not.toBeNull();

    // The old binary is still there, unchanged; the operator now names another.
    const other = path.join(path.dirname(s.claude), 'claude-next');
    writeFileSync(other, '#!/bin/sh\n');
    s.hold();
    const second = s.detector(other);
    const answer = second.get();
    s.release();
    expect((await answer).claude).toMatchObject({ installed: true, path: other });
    expect(second.peek()?.claude.path).toBe(other);
  });

  it("a restart answers the last run's detection at once, while its own detection runs", async () => {
    const s = setup();
    const first = s.detector();
    const detecting = first.get();
    s.release();
    expect((await detecting).claude).toMatchObject({ installed: true, version: '2.1.197' });
    // Saved beside the detection (not awaited by it): wait for the file.
    await expect.poll(() => new CapabilitiesCache(path.join(path.dirname(s.claude), 'capabilities.json')).load()).not.toBeNull();

    s.hold();
    const second = s.detector();
    // The CLIs do not answer (held), yet the first heartbeat has what to say.
    expect((await second.get()).claude).toMatchObject({ installed: true, version: '2.1.197', path: s.claude });
    // …and so do claims: what the work side reads before this run's detection ends.
    expect(second.peek()?.claude).toMatchObject({ installed: true, version: '2.1.197' });
    s.release();
  });

  it("a restart's own detection starts after the remembered answer went out (its CLI spawns would delay the first heartbeat), and then replaces it", async () => {
    const s = setup();
    const first = s.detector();
    const detecting = first.get();
    s.release();
    await detecting;
    await expect.poll(() => new CapabilitiesCache(path.join(path.dirname(s.claude), 'capabilities.json')).load()).not.toBeNull();

    s.hold();
    s.cli.runs = 0;
    s.cli.version = '2.1.198';
    const second = s.detector();
    expect((await second.get()).claude).toMatchObject({ version: '2.1.197' });
    expect(s.cli.runs).toBe(0);
    await expect.poll(() => s.cli.runs).toBeGreaterThan(0);
    s.release();
    await expect.poll(() => second.peek()?.claude.version).toBe('2.1.198');
  });

  it("a restart's own detection waits for its refresh gate (the host's first heartbeat answered), then runs once", async () => {
    const s = setup();
    const first = s.detector();
    const detecting = first.get();
    s.release();
    await detecting;
    await expect.poll(() => new CapabilitiesCache(path.join(path.dirname(s.claude), 'capabilities.json')).load()).not.toBeNull();

    s.hold();
    s.cli.runs = 0;
    let open: () => void = () => undefined;
    const second = s.detector();
    const atStart = second.detectAtStart(new Promise<void>((resolve) => (open = resolve)));
    expect((await second.get()).claude).toMatchObject({ version: '2.1.197' });
    // Several turns of the event loop later (setImmediate, the old trigger), nothing was spawned.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(s.cli.runs).toBe(0);
    open();
    await expect.poll(() => s.cli.runs).toBeGreaterThan(0);
    s.release();
    await expect.poll(() => second.peek()?.claude.version).toBe('2.1.197');
    // The start's own detection is that one: no second.
    const runs = s.cli.runs;
    await atStart;
    await second.freshen();
    expect(s.cli.runs).toBe(runs);
  });

  it('with no last detection on disk, the start detects at once (the first heartbeat waits for it anyway), once', async () => {
    const s = setup();
    const detector = s.detector();
    const atStart = detector.detectAtStart(new Promise<void>(() => undefined));
    await expect.poll(() => s.cli.runs).toBeGreaterThan(0);
    const beat = detector.get();
    s.release();
    expect((await atStart).claude).toMatchObject({ installed: true, version: '2.1.197' });
    expect((await beat).claude).toMatchObject({ installed: true, version: '2.1.197' });
    // One detection: claude's --version and its sign-in check (codex is not found).
    expect(s.cli.runs).toBe(2);
  });

  it('is not used once the binary changed: the restart waits for its own detection', async () => {
    const s = setup();
    const first = s.detector();
    const detecting = first.get();
    s.release();
    await detecting;
    const cache = new CapabilitiesCache(path.join(path.dirname(s.claude), 'capabilities.json'));
    await expect.poll(() => cache.load()).not.toBeNull();

    // An update of the CLI: another file at the same path.
    writeFileSync(s.claude, '#!/bin/sh\necho new\n');
    utimesSync(s.claude, new Date(), new Date(Date.now() + 60_000));
    expect(await cache.load()).toBeNull();
    s.cli.version = '2.2.0';
    // The answer is this run's detection, not the remembered 2.1.197.
    expect((await s.detector().get()).claude).toMatchObject({ installed: true, version: '2.2.0' });
  });
});
