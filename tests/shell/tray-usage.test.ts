import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunnerStatus, TrayIconKind } from '../../shared/status';
import type { UsageAccountView, UsageSnapshot } from '../../shared/usage';
import { wallClock } from '../../shared/usage-text';
import { trayIconPath } from '../../main/electron/app-paths';
import { TrayController, type TrayTarget } from '../../main/electron/tray';
import { createFakeElectron, type FakeElectron } from './fake-electron';
import { snapshotOf, TrayTestHost } from './tray-host';

// The tray's one line per model account and its usage notifications, against the fake Electron.

const NOW = Date.parse('2026-12-02T14:16:00.000Z');
const idle: RunnerStatus = { state: 'idle', reason: 'Waiting for work.' };
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
const zero = { inputTokens: 0, outputTokens: 0, costUsd: 0, turns: 0 };

function account(over: Partial<UsageAccountView>): UsageAccountView {
  return {
    key: 'codex:default',
    runtime: 'codex',
    alias: 'default',
    windows: { primary: null, secondary: null },
    observedAt: NOW,
    limited: null,
    today: zero,
    week: zero,
    lastTurn: null,
    admission: { state: 'claiming' },
    history: [],
    ...over,
  };
}

let fake: FakeElectron;
let host: TrayTestHost;
let onOpen: ReturnType<typeof vi.fn<(target?: TrayTarget) => void>>;

async function startTray(): Promise<void> {
  const tray = new TrayController({
    electron: fake.api,
    host,
    iconPath: (kind: TrayIconKind) => trayIconPath('/icons', kind, 'linux'),
    platform: 'linux',
    onOpen,
    onQuit: () => undefined,
    now: () => NOW,
  });
  tray.start();
  await settle();
}

beforeEach(() => {
  fake = createFakeElectron();
  host = new TrayTestHost();
  host.snapshot = snapshotOf(idle);
  onOpen = vi.fn<(target?: TrayTarget) => void>();
});

describe('tray usage lines', () => {
  it('one line per account: a deferred codex account with its resume time, a claude account with today’s turns', async () => {
    const resetsAt = NOW + 2 * 3_600_000 + 14 * 60_000;
    host.usage = {
      reservePercent: 2,
      accounts: [
        account({
          windows: { primary: { usedPercent: 98.2, windowMinutes: 300, resetsAt }, secondary: null },
          admission: { state: 'deferred', reason: 'rate-limit remaining 1.8% …', remainingPercent: 1.8, resumesAt: resetsAt, probeAt: null },
        }),
        account({ key: 'claude:default', runtime: 'claude', today: { inputTokens: 1200, outputTokens: 300, costUsd: 0.42, turns: 3 } }),
      ],
    } satisfies UsageSnapshot;
    await startTray();
    const labels = fake.trays[0]!.menuLabels();
    expect(labels.slice(0, 6)).toEqual([
      'Idle',
      'No turns running',
      '---',
      `Codex · default: deferred: 1.8 % left, resumes at ${wallClock(resetsAt)}`,
      'Claude · default: 3 turns today, $0.42',
      '---',
    ]);
    fake.trays[0]!.clickMenuItem('Claude · default: 3 turns today, $0.42');
    expect(onOpen).toHaveBeenCalledWith('dashboard');
  });

  it('follows usage:update, and shows usage notices when notifications are on', async () => {
    await startTray();
    expect(fake.trays[0]!.menuLabels().filter((l) => l.includes(' · '))).toEqual([]);
    host.emit([
      {
        event: 'usage:update',
        payload: {
          reservePercent: 2,
          accounts: [account({ windows: { primary: { usedPercent: 40, windowMinutes: 300, resetsAt: NOW + 3_600_000 }, secondary: null } })],
        },
      },
    ]);
    expect(fake.trays[0]!.menuLabels()).toContain(`Codex · default: 60 % left, resets in 1 h (at ${wallClock(NOW + 3_600_000)})`);

    host.emit([
      { event: 'usage:notice', payload: { kind: 'limited', account: 'claude:default', message: 'Claude AI usage limit reached', until: NOW + 3_600_000 } },
    ]);
    expect(fake.notifications.at(-1)?.options).toEqual({
      title: 'Usage limit reached',
      body: `claude:default: Claude AI usage limit reached. Claims wait until ${wallClock(NOW + 3_600_000)}.`,
    });
    host.changeSettings({ notifications: false });
    host.emit([{ event: 'usage:notice', payload: { kind: 'recovered', account: 'claude:default' } }]);
    expect(fake.notifications).toHaveLength(1);
  });
});
