import { untilMorningLabel } from '../../shared/pause-until';
import { worstStatus, type ProfileSummary } from '../../shared/profiles';
import { statusLine, trayIconFor, type RunnerStatus, type TrayIconKind } from '../../shared/status';
import type { UsageSnapshot } from '../../shared/usage';
import { accountSummaryLine } from '../../shared/usage-text';
import type { MenuItemSpec } from './electron-api';

/** Where the tray can open the window. */
export type TrayTarget = 'dashboard' | 'turns' | 'pairing' | 'settings';

/** What the tray knows: the status, plus the few snapshot facts its menu acts on. */
export interface TrayFacts {
  status: RunnerStatus;
  /** null until the first snapshot: then the status alone decides. */
  paired: boolean | null;
  paused: boolean;
  activeTurns: number;
  /** The core is quitting (the status is `draining`). */
  quitting: boolean;
  /** Finished turns' results the control plane does not have yet. */
  undelivered?: number;
  /** The lent model accounts (absent until the first usage:get / usage:update). */
  usage?: UsageSnapshot | null;
  /** Every profile (absent until the first profiles:list / profiles:changed). With more than one, the menu lists them. */
  profiles?: readonly ProfileSummary[] | null;
  /** The newest line a running turn's transcript printed (redacted by the core). */
  lastLine?: string;
  /** While a setting widens what a turn can reach: the warning (shared/widening.ts). */
  widening?: string | null;
  /** A downloaded update: "Update available: 0.2.0 — restart to install". */
  update?: string | null;
}

/** How much of a running turn's last line the tooltip shows (Windows cuts tooltips at 127 characters). */
export const TOOLTIP_LINE_CHARS = 60;

/** One profile's line in the menu, with its own pause and resume. */
export interface TrayProfileItem {
  id: string;
  label: string;
  /** null: nothing to pause (not paired). */
  pause: 'pause' | 'resume' | null;
}

/** Everything the tray shows; the menu is rebuilt only when this changes. */
export interface TrayMenuModel {
  statusLine: string;
  activeTurns: number;
  undelivered: number;
  /** null: nothing to pause (not paired). */
  pause: 'pause' | 'resume' | null;
  pairing: 'pair' | 'show-code' | 'unpair';
  /** `draining`: the core waits for running turns; `stopping`: it cancels them or is about to exit. */
  quit: 'now' | 'drain' | 'draining' | 'stopping';
  /** One line per model account: "Codex · default: 1.8 % left, resets in 2 h 14 min (at 16:30)". */
  usageLines: string[];
  /** A setting widens what a turn can reach: shown first, opens Settings. */
  widening: string | null;
  /** A downloaded update's line; choosing it quits after the running turns, and the update installs on quit. */
  update: string | null;
  /** With several profiles: each one, and whether "Pause all" / "Resume all" apply (null: one profile). */
  profiles: TrayProfileItem[] | null;
  pauseAll: boolean;
  resumeAll: boolean;
  /** The pause to the next local 09:00, in words at the time of the menu: "until 9:00" or "until tomorrow 9:00". */
  morning: string;
}

export interface TrayView {
  icon: TrayIconKind;
  tooltip: string;
  menu: TrayMenuModel;
}

export interface TrayActions {
  open(target: TrayTarget): void;
  /** Without a profile: the default one (a host of one profile). */
  pause(minutes: number | null, profile?: string): void;
  /** A pause to the next local 09:00, counted at the click. */
  pauseUntilMorning(profile?: string): void;
  resume(profile?: string): void;
  pauseAll(): void;
  resumeAll(): void;
  pair(): void;
  quitNow(): void;
  quitAfterTurns(): void;
  cancelQuit(): void;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Derived from the facts alone: the tray never computes runner truth of its own. */
export function trayView(facts: TrayFacts, now: number): TrayView {
  const several = facts.profiles && facts.profiles.length > 1 ? facts.profiles : null;
  // Several profiles: the icon and the headline are the worst state that needs attention.
  const status = several ? (worstStatus(several.map((p) => p.status)) ?? facts.status) : facts.status;
  const activeTurns = several ? several.reduce((n, p) => n + p.active, 0) : facts.activeTurns;
  const line = several ? `${several.length} profiles · ${statusLine(status, now)}` : headline(status, now);
  const unpairedState = status.state === 'unpaired' || status.state === 'pairing' || status.state === 'revoked';
  const paired = facts.paired ?? !unpairedState;
  const stoppingNow = status.state === 'draining' && (status.mode === 'now' || status.remaining === 0);
  const quit = facts.quitting ? (stoppingNow ? 'stopping' : 'draining') : activeTurns === 0 ? 'now' : 'drain';
  const profiles = several?.map((p) => ({ id: p.id, label: `${p.name}: ${statusLine(p.status, now)}`, pause: profilePause(p) })) ?? null;
  return {
    icon: trayIconFor(status),
    tooltip: withLastLine(
      `${facts.widening ? `⚠ ${facts.widening} — ` : ''}${facts.undelivered ? `${line} — ${undeliveredLine(facts.undelivered)}` : line}`,
      activeTurns > 0 ? facts.lastLine : undefined,
    ),
    menu: {
      statusLine: line,
      activeTurns,
      undelivered: facts.undelivered ?? 0,
      pause: several ? null : paired ? (facts.paused ? 'resume' : 'pause') : null,
      pairing: paired ? 'unpair' : status.state === 'pairing' ? 'show-code' : 'pair',
      quit,
      usageLines: (facts.usage?.accounts ?? []).map((account) => accountSummaryLine(account, now)),
      widening: facts.widening ?? null,
      update: facts.update ?? null,
      profiles,
      pauseAll: profiles?.some((p) => p.pause === 'pause') ?? false,
      resumeAll: profiles?.some((p) => p.pause === 'resume') ?? false,
      morning: untilMorningLabel(new Date(now)),
    },
  };
}

/** One profile's headline: a runner held back says why it claims nothing ("Not claiming: you are using this machine"). */
function headline(status: RunnerStatus, now: number): string {
  return status.state === 'idle' && status.held ? `Not claiming: ${status.held}` : statusLine(status, now);
}

function profilePause(profile: ProfileSummary): TrayProfileItem['pause'] {
  if (profile.runnerId === null) return null;
  return profile.paused ? 'resume' : 'pause';
}

export function undeliveredLine(count: number): string {
  return `${plural(count, 'result', 'results')} not delivered yet`;
}

export const PAUSE_PRESETS: ReadonlyArray<{ label: string; minutes: number }> = [
  { label: '30 minutes', minutes: 30 },
  { label: '1 hour', minutes: 60 },
];

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export function trayMenuTemplate(model: TrayMenuModel, actions: TrayActions): MenuItemSpec[] {
  const items: MenuItemSpec[] = [{ label: model.statusLine, enabled: false }];
  if (model.widening) items.push({ label: `⚠ ${model.widening}…`, click: () => actions.open('settings') });
  // Never a restart under running turns: the quit waits for them, then the update installs.
  if (model.update) items.push({ label: model.update, click: () => actions.quitAfterTurns() });
  items.push(
    model.activeTurns > 0
      ? { label: `${plural(model.activeTurns, 'turn', 'turns')} running…`, click: () => actions.open('turns') }
      : { label: 'No turns running', enabled: false },
  );
  if (model.undelivered > 0) items.push({ label: `${undeliveredLine(model.undelivered)}…`, click: () => actions.open('turns') });
  if (model.usageLines.length > 0) {
    items.push({ type: 'separator' });
    for (const line of model.usageLines) items.push({ label: line, click: () => actions.open('dashboard') });
  }
  items.push({ type: 'separator' });
  if (model.profiles) items.push(...profileItems(model, actions));
  if (model.pause === 'pause') {
    items.push(
      { label: 'Pause', click: () => actions.pause(null) },
      {
        label: 'Pause for',
        submenu: [
          ...PAUSE_PRESETS.map((preset) => ({ label: preset.label, click: () => actions.pause(preset.minutes) })),
          { label: capitalized(model.morning), click: () => actions.pauseUntilMorning() },
          { label: 'Until I resume', click: () => actions.pause(null) },
        ],
      },
      { type: 'separator' },
    );
  } else if (model.pause === 'resume') {
    items.push({ label: 'Resume', click: () => actions.resume() }, { type: 'separator' });
  }
  items.push({ label: 'Open dashboard', click: () => actions.open('dashboard') });
  if (model.profiles) items.push({ label: 'Profiles and pairing…', click: () => actions.open('pairing') });
  else if (model.pairing === 'pair') items.push({ label: 'Pair this machine…', click: () => actions.pair() });
  else if (model.pairing === 'show-code') items.push({ label: 'Show pairing code…', click: () => actions.open('pairing') });
  // Unpairing asks first, and the question lives in the window.
  else items.push({ label: 'Unpair…', click: () => actions.open('pairing') });
  items.push({ type: 'separator' });
  if (model.quit === 'now') {
    // Nothing runs: "after the running turns" quits at once, and cannot cut off a turn being claimed.
    items.push({ label: 'Quit Runner Tray', click: () => actions.quitAfterTurns() });
  } else if (model.quit === 'drain') {
    items.push(
      { label: `Quit after ${plural(model.activeTurns, 'running turn finishes', 'running turns finish')}`, click: () => actions.quitAfterTurns() },
      { label: 'Quit now', click: () => actions.quitNow() },
    );
  } else if (model.quit === 'draining') {
    // The status line above says what the quit waits for and how long.
    items.push({ label: 'Quit now', click: () => actions.quitNow() }, { label: "Don't quit", click: () => actions.cancelQuit() });
  } else {
    items.push({ label: 'Quitting…', enabled: false });
  }
  return items;
}

/** Each profile with its status and its own pause or resume, then "Pause all" / "Resume all". */
function profileItems(model: TrayMenuModel, actions: TrayActions): MenuItemSpec[] {
  const items: MenuItemSpec[] = [];
  for (const profile of model.profiles ?? []) {
    const submenu: MenuItemSpec[] = [];
    if (profile.pause === 'pause') {
      submenu.push(
        { label: 'Pause', click: () => actions.pause(null, profile.id) },
        ...PAUSE_PRESETS.map((preset) => ({
          label: `Pause for ${preset.label}`,
          click: () => actions.pause(preset.minutes, profile.id),
        })),
        { label: `Pause ${model.morning}`, click: () => actions.pauseUntilMorning(profile.id) },
      );
    } else if (profile.pause === 'resume') submenu.push({ label: 'Resume', click: () => actions.resume(profile.id) });
    else submenu.push({ label: 'Not paired', enabled: false });
    items.push({ label: profile.label, submenu });
  }
  if (model.pauseAll) items.push({ label: 'Pause all', click: () => actions.pauseAll() });
  if (model.resumeAll) items.push({ label: 'Resume all', click: () => actions.resumeAll() });
  items.push({ type: 'separator' });
  return items;
}

/** The status line, and while turns run the newest line one of them printed, cut to fit. */
function withLastLine(tooltip: string, last: string | undefined): string {
  if (!last) return tooltip;
  const cut = last.length > TOOLTIP_LINE_CHARS ? `${last.slice(0, TOOLTIP_LINE_CHARS - 1)}…` : last;
  return `${tooltip}\n${cut}`;
}
