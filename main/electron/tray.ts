import type { CommandName, HostEvent, SettingsView } from '../../shared/contract';
import type { Settings } from '../../shared/settings';
import { minutesUntilMorning } from '../../shared/pause-until';
import { wideningWarning } from '../../shared/widening';
import type { PairingState, RunnerSnapshot } from '../../shared/runner';
import type { RunnerStatus, TrayIconKind } from '../../shared/status';
import type { Host } from '../core/host';
import type { ElectronApi, TrayApi } from './electron-api';
import { trayMenuTemplate, trayView, type TrayActions, type TrayFacts, type TrayTarget, type TrayView } from './tray-menu';
import type { TranscriptUpdate } from '../../shared/transcript';
import type { UsageSnapshot } from '../../shared/usage';
import { DEFAULT_PROFILE_ID, type ProfileSummary } from '../../shared/profiles';
import { failedTurnsNotice, pairingApprovedNotice, revokedNotice, runtimePausedNotice, TrayNotifier, usageNotice } from './tray-notifications';

export { type TrayTarget, type TrayView } from './tray-menu';

export interface TrayControllerOptions {
  electron: Pick<ElectronApi, 'Tray' | 'Menu' | 'Notification'>;
  host: Pick<Host, 'status' | 'subscribe' | 'invoke'>;
  iconPath: (kind: TrayIconKind) => string;
  platform: string;
  /** Shows the window, on a given view when the item is about one. */
  onOpen: (target?: TrayTarget) => void;
  /** Quits through the app's quit path (before-quit, which runs the core's quit policy). */
  onQuit: () => void;
  now?: () => number;
}

/**
 * The tray icon, its tooltip and its menu, following the host's events; native
 * notifications for the moments worth an interruption. Each part is touched only when
 * what it shows changes: rebuilding a native menu while it is open closes it under the
 * operator's pointer on some platforms, and a busy runner sends many events that change
 * nothing the tray shows (a snapshot on every heartbeat).
 */
export class TrayController {
  private tray: TrayApi | null = null;
  private unsubscribe: (() => void) | null = null;
  private shownIcon: TrayIconKind | null = null;
  private shownTooltip: string | null = null;
  private shownMenuKey: string | null = null;
  private facts: TrayFacts | null = null;
  private pairing: PairingState | null | undefined = undefined;
  private readonly notifier: TrayNotifier;
  private readonly now: () => number;
  private readonly actions: TrayActions;

  constructor(private readonly options: TrayControllerOptions) {
    this.now = options.now ?? Date.now;
    this.notifier = new TrayNotifier(options.electron, (target) => options.onOpen(target), options.platform);
    this.actions = {
      open: (target) => options.onOpen(target),
      pause: (minutes, profile) => void this.run('runner:pause', { minutes, ...(profile ? { profile } : {}) }),
      pauseUntilMorning: (profile) => this.actions.pause(minutesUntilMorning(new Date(this.now())), profile),
      resume: (profile) => void this.run('runner:resume', profile ? { profile } : {}),
      pauseAll: () => void this.run('runner:pause-all', { minutes: null }),
      resumeAll: () => void this.run('runner:resume-all'),
      pair: () => {
        options.onOpen('pairing');
        void this.run('pairing:start');
      },
      // The core's one quit policy does the waiting; the app quits when the core has stopped.
      quitNow: () => void this.quit('now'),
      quitAfterTurns: () => void this.quit('after-turns'),
      cancelQuit: () => void this.run('runner:quit', { mode: 'cancel' }),
    };
  }

  start(): void {
    if (this.tray) return;
    this.facts = { status: this.options.host.status(), paired: null, paused: false, activeTurns: 0, quitting: false };
    const view = this.view();
    const tray = new this.options.electron.Tray(this.options.iconPath(view.icon));
    this.tray = tray;
    this.shownIcon = view.icon;
    // macOS opens the menu on click by itself; elsewhere a click means "show me".
    if (this.options.platform !== 'darwin') tray.on('click', () => this.options.onOpen());
    this.render(view);
    this.unsubscribe = this.options.host.subscribe((batch) => this.onEvents(batch));
    void this.loadFacts();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.tray && !this.tray.isDestroyed()) this.tray.destroy();
    this.tray = null;
    this.shownIcon = null;
    this.shownTooltip = null;
    this.shownMenuKey = null;
  }

  /** Applies a status as a `runner:status` event would (kept for callers that push one). */
  update(status: RunnerStatus): void {
    this.onEvents([{ event: 'runner:status', payload: status }]);
  }

  /** What the tray shows now (for tests and diagnostics). */
  currentView(): TrayView | null {
    return this.facts ? this.view() : null;
  }

  private async loadFacts(): Promise<void> {
    // Answers that are not there (a host without these commands) leave the defaults.
    const [snapshot, settings, usage, profiles] = await Promise.all([
      this.options.host.invoke('runner:snapshot', {}),
      this.options.host.invoke('settings:get', {}),
      this.options.host.invoke('usage:get', {}),
      this.options.host.invoke('profiles:list', {}),
    ]);
    if (!this.tray) return;
    if (usage.ok && this.facts) this.facts = { ...this.facts, usage: usage.value as UsageSnapshot };
    if (profiles.ok && this.facts) this.facts = { ...this.facts, profiles: profiles.value as ProfileSummary[] };
    if (snapshot.ok) this.applySnapshot(snapshot.value as RunnerSnapshot, false);
    if (settings.ok) this.applySettings((settings.value as SettingsView).settings);
    this.refresh();
  }

  private applySettings(settings: Settings): void {
    this.notifier.setEnabled(settings.notifications);
    if (this.facts) this.facts = { ...this.facts, widening: wideningWarning(settings) };
  }

  private onEvents(batch: HostEvent[]): void {
    if (!this.facts || !this.tray) return;
    for (const event of batch) {
      switch (event.event) {
        // The facts of one profile are the default one's; the others come with profiles:changed.
        case 'runner:status':
          if (!isDefault(event.payload.profile)) break;
          this.notifier.notify(revokedNotice(this.facts.status, event.payload));
          this.facts = { ...this.facts, status: event.payload };
          break;
        case 'runner:snapshot':
          if (!isDefault(event.payload.profile)) break;
          this.notifier.notify(revokedNotice(this.facts.status, event.payload.status));
          this.applySnapshot(event.payload, true);
          break;
        case 'profiles:changed':
          this.notifyRevokedProfiles(event.payload);
          this.facts = { ...this.facts, profiles: event.payload };
          break;
        case 'turns:update':
          this.notifier.notify(failedTurnsNotice(event.payload.finished));
          break;
        case 'turns:transcript': {
          const last = lastClosedLine(event.payload);
          if (last !== null) this.facts = { ...this.facts, lastLine: last };
          break;
        }
        case 'runner:notice':
          this.notifier.notify(runtimePausedNotice(event.payload.message));
          break;
        case 'settings:changed':
          // Notifications are host-wide; the widening warning follows the default profile's settings.
          if (isDefault(event.payload.profile)) this.applySettings(event.payload.settings);
          else this.notifier.setEnabled(event.payload.settings.notifications);
          break;
        case 'usage:update':
          this.facts = { ...this.facts, usage: event.payload };
          break;
        case 'usage:notice':
          this.notifier.notify(usageNotice(event.payload));
          break;
        case 'app:update':
          this.facts = { ...this.facts, update: event.payload.line };
          break;
        default:
          break;
      }
    }
    this.refresh();
  }

  /** A profile other than the default one revoked: the same notice, once per change. */
  private notifyRevokedProfiles(profiles: readonly ProfileSummary[]): void {
    const before = new Map((this.facts?.profiles ?? []).map((p) => [p.id, p.status]));
    for (const profile of profiles) {
      const was = before.get(profile.id);
      if (isDefault(profile.id) || !was) continue;
      this.notifier.notify(revokedNotice(was, profile.status));
    }
  }

  private applySnapshot(snapshot: RunnerSnapshot, live: boolean): void {
    if (!this.facts) return;
    if (live && this.pairing !== undefined) this.notifier.notify(pairingApprovedNotice(this.pairing, snapshot));
    this.pairing = snapshot.pairing;
    this.facts = {
      ...this.facts,
      status: snapshot.status,
      paired: snapshot.identity !== null,
      paused: snapshot.paused !== null,
      activeTurns: snapshot.sessions.active,
      undelivered: snapshot.results?.undelivered ?? 0,
    };
  }

  private refresh(): void {
    if (!this.facts) return;
    this.facts = { ...this.facts, quitting: this.facts.status.state === 'draining' };
    this.render(this.view());
  }

  private view(): TrayView {
    return trayView(this.facts!, this.now());
  }

  private render(view: TrayView): void {
    const tray = this.tray;
    if (!tray) return;
    if (view.icon !== this.shownIcon) {
      tray.setImage(this.options.iconPath(view.icon));
      this.shownIcon = view.icon;
    }
    if (view.tooltip !== this.shownTooltip) {
      tray.setToolTip(view.tooltip);
      this.shownTooltip = view.tooltip;
    }
    const menuKey = JSON.stringify(view.menu);
    if (menuKey !== this.shownMenuKey) {
      tray.setContextMenu(this.options.electron.Menu.buildFromTemplate(trayMenuTemplate(view.menu, this.actions)));
      this.shownMenuKey = menuKey;
    }
  }

  private async run(name: CommandName, input: unknown = {}): Promise<boolean> {
    const result = await this.options.host.invoke(name, input);
    return result.ok;
  }

  /** Asks the core to quit; if it cannot be asked (no answer), quit through the app anyway. */
  private async quit(mode: 'after-turns' | 'now'): Promise<void> {
    if (!(await this.run('runner:quit', { mode }))) this.options.onQuit();
  }
}

/** The newest finished line of the batch (a growing one would change the tooltip on every piece). */
function lastClosedLine(updates: readonly TranscriptUpdate[]): string | null {
  for (let u = updates.length - 1; u >= 0; u--) {
    const lines = updates[u]!.lines;
    for (let i = lines.length - 1; i >= 0; i--) if (!lines[i]!.open && lines[i]!.text.trim()) return lines[i]!.text.trim();
  }
  return null;
}

function isDefault(profile: string | undefined): boolean {
  return (profile ?? DEFAULT_PROFILE_ID) === DEFAULT_PROFILE_ID;
}
