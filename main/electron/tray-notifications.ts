import type { PairingState, RunnerSnapshot } from '../../shared/runner';
import type { RunnerStatus } from '../../shared/status';
import type { TurnView } from '../../shared/turns';
import type { UsageNotice } from '../../shared/usage';
import { capNoticeText, percentText, wallClock } from '../../shared/usage-text';
import type { ElectronApi, NotificationApi } from './electron-api';
import type { TrayTarget } from './tray-menu';

export interface TrayNotice {
  title: string;
  body: string;
  /** Where a click on it takes the operator. */
  target: TrayTarget;
}

const MAX_BODY = 180;

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_BODY ? `${line.slice(0, MAX_BODY - 1)}…` : line;
}

function seatOf(turn: TurnView): string {
  return turn.seat?.name ?? (turn.kind === 'work_order' ? 'A work order' : 'A turn');
}

/**
 * The three moments worth interrupting the operator for, found by comparing what the
 * tray saw before with what it sees now. Pure, so each is easy to test.
 */
export function pairingApprovedNotice(before: PairingState | null | undefined, after: RunnerSnapshot): TrayNotice | null {
  if (after.pairing?.phase !== 'approved' || before?.phase === 'approved') return null;
  return {
    title: 'Runner paired',
    body: oneLine(`This machine is paired as ${after.pairing.runnerName}${after.identity ? ` with ${after.identity.controlPlane}` : ''} and takes work now.`),
    target: 'dashboard',
  };
}

export function revokedNotice(before: RunnerStatus | null, after: RunnerStatus): TrayNotice | null {
  if (after.state !== 'revoked' || before === null || before.state === 'revoked') return null;
  return { title: 'Runner revoked', body: 'The control plane revoked this runner and its secret was deleted. Pair again to keep working.', target: 'pairing' };
}

export function failedTurnsNotice(finished: TurnView[]): TrayNotice | null {
  const failed = finished.filter((turn) => turn.phase === 'failed');
  if (failed.length === 0) return null;
  if (failed.length > 1) return { title: `${failed.length} turns failed`, body: 'Open the turns to see why.', target: 'turns' };
  const turn = failed[0]!;
  return { title: 'A turn failed', body: oneLine(`${seatOf(turn)}: ${turn.reason ?? turn.summary ?? 'no reason given'}`), target: 'turns' };
}

/** The circuit breaker paused a runtime: the queue is not being drained, and the operator must act. */
export function runtimePausedNotice(message: string): TrayNotice {
  return { title: 'Claiming paused', body: oneLine(message), target: 'dashboard' };
}

/** A usage threshold crossed, an account limited, or recovered (usage:notice). */
export function usageNotice(notice: UsageNotice): TrayNotice {
  switch (notice.kind) {
    case 'threshold':
      return { title: 'Model account running low', body: oneLine(`${notice.account} has ${percentText(notice.remainingPercent)} left.`), target: 'dashboard' };
    case 'limited':
      return {
        title: 'Usage limit reached',
        body: oneLine(
          `${notice.account}: ${notice.message}. ${notice.until !== null ? `Claims wait until ${wallClock(notice.until)}.` : 'Claims wait; re-checked every 15 min.'}`,
        ),
        target: 'dashboard',
      };
    case 'recovered':
      return { title: 'Claiming again', body: oneLine(`${notice.account} has room again; the runner takes work.`), target: 'dashboard' };
    case 'cap':
      return { title: `Spending cap at ${notice.percent} %`, body: oneLine(capNoticeText(notice)), target: 'dashboard' };
  }
}

/**
 * Freedesktop notification servers may render a markup subset in the body (`<b>`, `<a>`,
 * `<img>`), so text that came from a control plane or a runtime (a seat name, a failure
 * reason) could style itself, link somewhere or load an image. On Linux the body is
 * escaped; elsewhere notifications are plain text.
 */
export function notificationText(text: string, platform: string): string {
  if (platform !== 'linux' && platform !== 'freebsd' && platform !== 'openbsd') return text;
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/**
 * Shows notices through Electron's Notification, when the operator wants them and the
 * system has them. Shown notifications are held until closed or clicked: one that is
 * garbage-collected early loses its click handler on some platforms.
 */
export class TrayNotifier {
  private enabled = true;
  private readonly live = new Set<NotificationApi>();

  constructor(
    private readonly electron: Pick<ElectronApi, 'Notification'>,
    private readonly open: (target: TrayTarget) => void,
    private readonly platform: string = process.platform,
  ) {}

  /** Follows the `notifications` setting. */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
  }

  get isEnabled(): boolean {
    return this.enabled;
  }

  notify(notice: TrayNotice | null): void {
    if (!notice || !this.enabled || !this.electron.Notification.isSupported()) return;
    const notification = new this.electron.Notification({ title: notice.title, body: notificationText(notice.body, this.platform) });
    this.live.add(notification);
    notification.on('click', () => {
      this.live.delete(notification);
      this.open(notice.target);
    });
    notification.on('close', () => this.live.delete(notification));
    notification.show();
  }
}
