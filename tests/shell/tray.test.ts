import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunnerStatus, TrayIconKind } from '../../shared/status';
import { trayIconPath } from '../../main/electron/app-paths';
import { TrayController, type TrayTarget } from '../../main/electron/tray';
import { TOOLTIP_LINE_CHARS } from '../../main/electron/tray-menu';
import { createFakeElectron, type FakeElectron } from './fake-electron';
import { failedTurn, snapshotOf, TrayTestHost } from './tray-host';

const ICONS = '/app/dist/electron/icons';
const idle: RunnerStatus = { state: 'idle', reason: 'Waiting for work.' };
const working = (active: number): RunnerStatus => ({ state: 'working', reason: 'Running turns.', active, limit: 3 });

/** Lets the tray's pending invocations (start-up facts, menu actions) finish. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

let fake: FakeElectron;
let host: TrayTestHost;
let onOpen: ReturnType<typeof vi.fn<(target?: TrayTarget) => void>>;
let onQuit: ReturnType<typeof vi.fn<() => void>>;

async function startTray(platform = 'linux', now?: () => number): Promise<TrayController> {
  const tray = new TrayController({
    ...(now ? { now } : {}),
    electron: fake.api,
    host,
    iconPath: (kind: TrayIconKind) => trayIconPath(ICONS, kind, platform),
    platform,
    onOpen,
    onQuit,
  });
  tray.start();
  await settle();
  return tray;
}

const tray = () => fake.trays[0]!;

beforeEach(() => {
  fake = createFakeElectron();
  host = new TrayTestHost();
  onOpen = vi.fn<(target?: TrayTarget) => void>();
  onQuit = vi.fn<() => void>();
});

describe('the tray menu', () => {
  it('unpaired: the status, no turns, Open dashboard, Pair this machine…, Quit', async () => {
    await startTray();
    expect(tray().image).toBe(path.join(ICONS, 'tray-unpaired.png'));
    expect(tray().tooltip).toBe('Not paired');
    expect(tray().menuLabels()).toEqual(['Not paired', 'No turns running', '---', 'Open dashboard', 'Pair this machine…', '---', 'Quit Runner Tray']);
    expect(tray().menuItem('Not paired')?.enabled).toBe(false);
    expect(tray().menuItem('No turns running')?.enabled).toBe(false);
  });

  it('Pair this machine… opens the pairing view and starts pairing; while pairing it shows the code', async () => {
    await startTray();
    tray().clickMenuItem('Pair this machine…');
    await settle();
    expect(onOpen).toHaveBeenCalledWith('pairing');
    expect(host.invoked.map((i) => i.name)).toContain('pairing:start');
    host.push(snapshotOf({ state: 'pairing', reason: 'Waiting for approval.' }));
    expect(tray().menuLabels()).toContain('Show pairing code…');
    tray().clickMenuItem('Show pairing code…');
    expect(onOpen).toHaveBeenLastCalledWith('pairing');
  });

  it('paired and idle: Pause, Pause for (30 minutes, 1 hour, until 9:00, Until I resume), Unpair… opens the window to ask', async () => {
    host.snapshot = snapshotOf(idle);
    await startTray();
    expect(tray().image).toBe(path.join(ICONS, 'tray-idle.png'));
    expect(tray().menuLabels()).toEqual([
      'Idle',
      'No turns running',
      '---',
      'Pause',
      'Pause for',
      '---',
      'Open dashboard',
      'Unpair…',
      '---',
      'Quit Runner Tray',
    ]);
    expect(
      tray()
        .menuItem('Pause for')
        ?.submenu?.map((i) => i.label),
    ).toEqual(['30 minutes', '1 hour', expect.stringMatching(/^Until (tomorrow )?9:00$/), 'Until I resume']);
    tray().clickMenuItem('Unpair…');
    expect(onOpen).toHaveBeenCalledWith('pairing');
    expect(host.invoked.map((i) => i.name)).not.toContain('runner:unpair');
  });

  it('pauses and resumes through the host, and the menu follows', async () => {
    host.snapshot = snapshotOf(idle);
    await startTray();
    tray().clickMenuItem('Pause for > 1 hour');
    await settle();
    expect(host.invoked.find((i) => i.name === 'runner:pause')?.input).toEqual({ minutes: 60 });
    expect(tray().image).toBe(path.join(ICONS, 'tray-paused.png'));
    expect(tray().menuLabels()[0]).toMatch(/^Paused until \d\d:\d\d$/);
    expect(tray().menuLabels()).toContain('Resume');
    expect(tray().menuLabels()).not.toContain('Pause');
    tray().clickMenuItem('Resume');
    await settle();
    expect(host.invoked.map((i) => i.name)).toContain('runner:resume');
    expect(tray().menuLabels()).toContain('Pause');
    tray().clickMenuItem('Pause');
    await settle();
    expect(host.invoked.filter((i) => i.name === 'runner:pause').at(-1)?.input).toEqual({ minutes: null });
    expect(tray().tooltip).toBe('Paused');
  });

  it('pauses until 9:00: tomorrow in the evening, today after midnight, the minutes counted at the click', async () => {
    const zone = process.env.TZ;
    process.env.TZ = 'Europe/Berlin';
    try {
      let now = new Date(2026, 11, 7, 21, 30).getTime();
      host.snapshot = snapshotOf(idle);
      await startTray('linux', () => now);
      now = new Date(2026, 11, 7, 22, 0).getTime();
      tray().clickMenuItem('Pause for > Until tomorrow 9:00');
      await settle();
      expect(host.invoked.find((i) => i.name === 'runner:pause')?.input).toEqual({ minutes: 11 * 60 });
      now = new Date(2026, 11, 8, 1, 0).getTime();
      tray().clickMenuItem('Resume');
      await settle();
      expect(
        tray()
          .menuItem('Pause for')
          ?.submenu?.map((i) => i.label),
      ).toContain('Until 9:00');
      tray().clickMenuItem('Pause for > Until 9:00');
      await settle();
      expect(host.invoked.filter((i) => i.name === 'runner:pause').at(-1)?.input).toEqual({ minutes: 8 * 60 });
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('a runner held back says why it claims nothing, in the tooltip and the menu header', async () => {
    const held = 'you are using this machine — resumes 5 min after you stop';
    host.snapshot = snapshotOf({ state: 'idle', reason: `Not taking work: ${held}.`, held });
    await startTray();
    expect(tray().tooltip).toBe(`Not claiming: ${held}`);
    expect(tray().menuLabels()[0]).toBe(`Not claiming: ${held}`);
    expect(tray().image).toBe(path.join(ICONS, 'tray-paused.png'));
  });

  it('says how many results the control plane does not have yet; a click opens the turns view', async () => {
    host.snapshot = snapshotOf(idle, { results: { undelivered: 2 } });
    await startTray();
    expect(tray().tooltip).toBe('Idle — 2 results not delivered yet');
    tray().clickMenuItem('2 results not delivered yet…');
    expect(onOpen).toHaveBeenCalledWith('turns');
    host.push(snapshotOf(idle, { results: { undelivered: 0 } }));
    expect(tray().menuLabels()).not.toContain('2 results not delivered yet…');
    expect(tray().tooltip).toBe('Idle');
  });

  it('warns while a setting widens what a turn can reach: first in the menu (opens Settings) and in the tooltip', async () => {
    host.snapshot = snapshotOf(idle);
    host.changeSettings({ useOwnAgentConfig: true });
    await startTray();
    const warning = '⚠ Turns reach more: Use my own claude/codex settings';
    expect(tray().tooltip).toBe(`${warning} — Idle`);
    expect(tray().menuLabels()[1]).toBe(`${warning}…`);
    tray().clickMenuItem(`${warning}…`);
    expect(onOpen).toHaveBeenCalledWith('settings');
    host.changeSettings({ useOwnAgentConfig: false, runtimeEnvAllow: 'AWS_*' });
    expect(tray().tooltip).toBe('⚠ Turns reach more: Extra environment variables for runtimes — Idle');
    host.changeSettings({ runtimeEnvAllow: '' });
    expect(tray().tooltip).toBe('Idle');
    expect(
      tray()
        .menuLabels()
        .some((label) => label.startsWith('⚠')),
    ).toBe(false);
  });

  it('shows the running turns, and a click opens the turns view', async () => {
    host.snapshot = snapshotOf(working(2));
    await startTray();
    expect(tray().image).toBe(path.join(ICONS, 'tray-working.png'));
    expect(tray().tooltip).toBe('Working 2 of 3');
    expect(tray().menuLabels().slice(0, 2)).toEqual(['Working 2 of 3', '2 turns running…']);
    tray().clickMenuItem('2 turns running…');
    expect(onOpen).toHaveBeenCalledWith('turns');
    host.push(snapshotOf(working(1)));
    expect(tray().menuLabels()[1]).toBe('1 turn running…');
  });

  it('while turns run, the tooltip shows the newest finished line of their transcript, cut to fit; it goes when they end', async () => {
    host.snapshot = snapshotOf(working(1));
    await startTray();
    const long = `$ npm test -- ${'x'.repeat(100)}`;
    host.emit([
      {
        event: 'turns:transcript',
        payload: [
          { id: 'u1', lines: [{ n: 0, kind: 'text', text: 'Reading the tests.' }], skipped: 0 },
          {
            id: 'u2',
            lines: [
              { n: 4, kind: 'command', text: long },
              { n: 5, kind: 'text', text: 'still writ', open: true },
            ],
            skipped: 0,
          },
        ],
      },
    ]);
    expect(tray().tooltip).toBe(`Working 1 of 3\n${long.slice(0, TOOLTIP_LINE_CHARS - 1)}…`);
    host.emit([{ event: 'turns:transcript', payload: [{ id: 'u1', lines: [{ n: 1, kind: 'command', text: 'exit 0', exitCode: 0 }], skipped: 0 }] }]);
    expect(tray().tooltip).toBe('Working 1 of 3\nexit 0');
    host.push(snapshotOf(idle));
    expect(tray().tooltip).toBe('Idle');
  });

  it('has an icon per state: unpaired, idle, working, paused, error', async () => {
    await startTray();
    const states: Array<[RunnerStatus, TrayIconKind]> = [
      [{ state: 'pairing', reason: '' }, 'unpaired'],
      [{ state: 'revoked', reason: '' }, 'unpaired'],
      [idle, 'idle'],
      [working(1), 'working'],
      [{ state: 'draining', reason: '', remaining: 1 }, 'working'],
      [{ state: 'paused', reason: '', until: null }, 'paused'],
      [{ state: 'offline', reason: '', retryAt: new Date(Date.now() + 12_000).toISOString() }, 'error'],
      [{ state: 'error', reason: '' }, 'error'],
    ];
    for (const [status, icon] of states) {
      host.push(snapshotOf(status));
      expect(tray().image, status.state).toBe(path.join(ICONS, `tray-${icon}.png`));
    }
    expect(tray().tooltip).toBe('Error');
  });

  it('rebuilds the menu and sets the icon only when what they show changes', async () => {
    host.snapshot = snapshotOf(idle);
    await startTray();
    const menus = fake.menus.length;
    const images = tray().images.length;
    const tooltips = tray().tooltip;
    // Heartbeats: new snapshots that change nothing the tray shows.
    for (let i = 0; i < 5; i++) {
      host.push(
        snapshotOf(
          { ...idle, reason: `Beat ${i}` },
          { heartbeat: { lastOkAt: new Date().toISOString(), nextAt: null, consecutiveFailures: 0, longPoll: true, intervalMs: 30_000 } },
        ),
      );
    }
    host.emit([{ event: 'log:entries', payload: [] }]);
    expect(fake.menus.length).toBe(menus);
    expect(tray().menuSets).toBe(menus);
    expect(tray().images.length).toBe(images);
    expect(tray().tooltip).toBe(tooltips);
    // Same icon, new line: the menu changes, the image is not set again.
    host.push(snapshotOf(working(1)));
    host.push(snapshotOf(working(2)));
    expect(fake.menus.length).toBe(menus + 2);
    expect(tray().images.length).toBe(images + 1);
  });

  it('opens the window on click outside macOS; on macOS a click opens the menu and template images are used', async () => {
    await startTray('win32');
    tray().click();
    expect(onOpen).toHaveBeenCalledOnce();
    fake = createFakeElectron();
    onOpen.mockClear();
    await startTray('darwin');
    expect(tray().image).toBe(path.join(ICONS, 'tray-unpairedTemplate.png'));
    tray().click();
    expect(onOpen).not.toHaveBeenCalled();
  });

  it('starts once and stops cleanly (unsubscribes, destroys the tray)', async () => {
    const controller = await startTray();
    controller.start();
    expect(fake.trays).toHaveLength(1);
    controller.stop();
    controller.stop();
    expect(tray().destroyed).toBe(true);
    const sets = tray().menuSets;
    host.push(snapshotOf(working(1)));
    expect(tray().menuSets).toBe(sets);
  });
});

describe('quitting from the tray', () => {
  const quits = () => host.invoked.filter((i) => i.name === 'runner:quit').map((i) => i.input);

  it('with nothing running, Quit asks the core to quit (after the running turns: there are none)', async () => {
    host.snapshot = snapshotOf(idle);
    await startTray();
    tray().clickMenuItem('Quit Runner Tray');
    await settle();
    expect(quits()).toEqual([{ mode: 'after-turns' }]);
    expect(tray().menuLabels().at(-1)).toBe('Quitting…');
  });

  it('with turns running, offers to quit after they finish or now; Quit now is the core\'s "now"', async () => {
    host.snapshot = snapshotOf(working(2));
    await startTray();
    expect(tray().menuLabels().slice(-2)).toEqual(['Quit after 2 running turns finish', 'Quit now']);
    tray().clickMenuItem('Quit now');
    await settle();
    expect(quits()).toEqual([{ mode: 'now' }]);
    expect(tray().menuLabels()[0]).toBe('Stopping now: canceling 2 turns');
  });

  it('"Quit after…" is the core\'s quit policy: the status says what it waits for, with Quit now and Don\'t quit', async () => {
    host.snapshot = snapshotOf(working(2));
    await startTray();
    tray().clickMenuItem('Quit after 2 running turns finish');
    await settle();
    expect(quits()).toEqual([{ mode: 'after-turns' }]);
    // The tray runs no timer and no pause of its own: the core drains.
    expect(host.invoked.map((i) => i.name)).not.toContain('runner:pause');
    expect(tray().menuLabels()[0]).toBe('Stopping: waiting for 2 turns (up to 5 min)');
    expect(tray().tooltip).toBe('Stopping: waiting for 2 turns (up to 5 min)');
    expect(tray().menuLabels().slice(-2)).toEqual(['Quit now', "Don't quit"]);
    tray().clickMenuItem('Quit now');
    await settle();
    expect(quits().at(-1)).toEqual({ mode: 'now' });
    expect(onQuit).not.toHaveBeenCalled();
  });

  it('"Don\'t quit" calls the core\'s quit off', async () => {
    host.snapshot = snapshotOf(working(1));
    await startTray();
    tray().clickMenuItem('Quit after 1 running turn finishes');
    await settle();
    tray().clickMenuItem("Don't quit");
    await settle();
    expect(quits()).toEqual([{ mode: 'after-turns' }, { mode: 'cancel' }]);
    expect(tray().menuLabels().slice(-2)).toEqual(['Quit after 1 running turn finishes', 'Quit now']);
    expect(onQuit).not.toHaveBeenCalled();
  });

  it('quits through the app when the core cannot be asked', async () => {
    host.snapshot = snapshotOf(working(1));
    host.quitAnswers = false;
    await startTray();
    tray().clickMenuItem('Quit now');
    await settle();
    expect(onQuit).toHaveBeenCalledOnce();
  });
});

describe('notifications', () => {
  const shown = () => fake.notifications.filter((n) => n.shown).map((n) => `${n.options.title}: ${n.options.body}`);

  it('when pairing is approved, not at start-up; a click opens the dashboard', async () => {
    host.snapshot = snapshotOf({ state: 'pairing', reason: '' }, { pairing: { phase: 'starting' } });
    await startTray();
    expect(shown()).toEqual([]);
    host.push(snapshotOf(idle, { pairing: { phase: 'approved', runnerName: 'studio' } }));
    expect(shown()).toEqual(['Runner paired: This machine is paired as studio with http://127.0.0.1:7457 and takes work now.']);
    // Later snapshots keep phase "approved": no second notification.
    host.push(snapshotOf(working(1), { pairing: { phase: 'approved', runnerName: 'studio' } }));
    expect(shown()).toHaveLength(1);
    fake.notifications[0]!.click();
    expect(onOpen).toHaveBeenCalledWith('dashboard');
  });

  it('when a turn fails (one, or several at once); a click opens the turns', async () => {
    host.snapshot = snapshotOf(working(2));
    await startTray();
    host.finish([{ ...failedTurn('a', 'Builder', 'The unit needs codex, but codex is not installed on this machine.'), phase: 'succeeded' }]);
    expect(shown()).toEqual([]);
    host.finish([failedTurn('b', 'Builder', 'The unit needs codex, but codex is not installed on this machine.\nmore detail')]);
    expect(shown()).toEqual(['A turn failed: Builder: The unit needs codex, but codex is not installed on this machine. more detail']);
    host.finish([failedTurn('c', null, 'x'), failedTurn('d', 'Reviewer', 'y')]);
    expect(shown().at(-1)).toBe('2 turns failed: Open the turns to see why.');
    fake.notifications.at(-1)!.click();
    expect(onOpen).toHaveBeenCalledWith('turns');
  });

  it('when the runner is revoked; a click opens pairing', async () => {
    host.snapshot = snapshotOf(idle);
    await startTray();
    host.push(snapshotOf({ state: 'revoked', reason: 'The control plane revoked this runner.' }));
    expect(shown()).toEqual(['Runner revoked: The control plane revoked this runner and its secret was deleted. Pair again to keep working.']);
    host.push(snapshotOf({ state: 'revoked', reason: 'still' }));
    expect(shown()).toHaveLength(1);
    fake.notifications[0]!.click();
    expect(onOpen).toHaveBeenCalledWith('pairing');
  });

  it('respects the notifications setting, at start and when it changes', async () => {
    host.settings = { ...host.settings, notifications: false };
    host.snapshot = snapshotOf(working(1));
    await startTray();
    host.finish([failedTurn('a', 'Builder', 'broke')]);
    expect(shown()).toEqual([]);
    host.changeSettings({ notifications: true });
    host.finish([failedTurn('b', 'Builder', 'broke again')]);
    expect(shown()).toEqual(['A turn failed: Builder: broke again']);
    host.changeSettings({ notifications: false });
    host.push(snapshotOf({ state: 'revoked', reason: '' }));
    expect(shown()).toHaveLength(1);
  });

  it('stays quiet where the system has no notifications', async () => {
    fake.notificationsSupported = false;
    host.snapshot = snapshotOf(working(1));
    await startTray();
    host.finish([failedTurn('a', 'Builder', 'broke')]);
    expect(fake.notifications).toEqual([]);
  });
});
