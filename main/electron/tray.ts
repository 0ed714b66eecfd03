import { statusLine, trayIconFor, type RunnerStatus, type TrayIconKind } from '../../shared/status';
import type { Host } from '../core/host';
import type { ElectronApi, MenuItemSpec, TrayApi } from './electron-api';

export interface TrayControllerOptions {
  electron: Pick<ElectronApi, 'Tray' | 'Menu'>;
  host: Pick<Host, 'status' | 'subscribe'>;
  iconPath: (kind: TrayIconKind) => string;
  platform: string;
  onOpen: () => void;
  onQuit: () => void;
  now?: () => number;
}

/** What the tray shows, derived from the status alone; the tray never computes state. */
export interface TrayView {
  icon: TrayIconKind;
  tooltip: string;
  menu: TrayMenuModel;
}

/** Everything the context menu shows; the menu is rebuilt only when this changes. */
export interface TrayMenuModel {
  statusLine: string;
}

export function trayView(status: RunnerStatus, now: number): TrayView {
  const line = statusLine(status, now);
  return { icon: trayIconFor(status), tooltip: line, menu: { statusLine: line } };
}

export function trayMenuTemplate(model: TrayMenuModel, actions: { onOpen: () => void; onQuit: () => void }): MenuItemSpec[] {
  return [
    { label: model.statusLine, enabled: false },
    { type: 'separator' },
    { label: 'Open Runner Tray', click: actions.onOpen },
    { type: 'separator' },
    { label: 'Quit Runner Tray', click: actions.onQuit },
  ];
}

/**
 * The tray icon, its tooltip and its menu, following `runner:status` events. Each part
 * is touched only when what it shows changes: rebuilding a native menu while it is open
 * closes it under the operator's pointer on some platforms, and a busy runner sends many
 * status events that change nothing the tray shows.
 */
export class TrayController {
  private tray: TrayApi | null = null;
  private unsubscribe: (() => void) | null = null;
  private shownIcon: TrayIconKind | null = null;
  private shownTooltip: string | null = null;
  private shownMenuKey: string | null = null;
  private readonly now: () => number;

  constructor(private readonly options: TrayControllerOptions) {
    this.now = options.now ?? Date.now;
  }

  start(): void {
    if (this.tray) return;
    const { Tray } = this.options.electron;
    const view = trayView(this.options.host.status(), this.now());
    const tray = new Tray(this.options.iconPath(view.icon));
    this.tray = tray;
    this.shownIcon = view.icon;
    // macOS opens the menu on click by itself; elsewhere a click means "show me".
    if (this.options.platform !== 'darwin') tray.on('click', () => this.options.onOpen());
    this.render(view);
    this.unsubscribe = this.options.host.subscribe((batch) => {
      // Events in a batch are latest-wins per name, so at most one status is in it.
      for (const event of batch) if (event.event === 'runner:status') this.update(event.payload);
    });
  }

  update(status: RunnerStatus): void {
    if (this.tray) this.render(trayView(status, this.now()));
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
      const { onOpen, onQuit } = this.options;
      tray.setContextMenu(this.options.electron.Menu.buildFromTemplate(trayMenuTemplate(view.menu, { onOpen, onQuit })));
      this.shownMenuKey = menuKey;
    }
  }
}
