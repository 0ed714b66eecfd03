/**
 * A picture of the tray menu model for docs/screenshots: the menu the real trayView and
 * trayMenuTemplate build for three profiles in mixed states (one working, one paused, one
 * whose control plane is down), drawn as a plain menu in Chromium. The native menu looks
 * like the OS's; what this shows is its content and order.
 * Run: node --import tsx scripts/tray-menu-picture.ts   (needs /usr/bin/chromium)
 */
import { chromium } from '@playwright/test';
import { trayMenuTemplate, trayView, type TrayActions } from '../main/electron/tray-menu';
import type { MenuItemSpec } from '../main/electron/electron-api';
import type { ProfileSummary } from '../shared/profiles';

const now = Date.parse('2026-12-03T09:00:00Z');
const profiles: ProfileSummary[] = [
  {
    id: 'default',
    name: 'Acme Forge',
    connector: 'rost',
    controlPlaneUrl: 'https://forge.acme.example',
    status: { state: 'working', reason: 'Running 2 turns.', active: 2, limit: 4 },
    runnerId: 'r-1',
    paused: false,
    active: 2,
  },
  {
    id: 'lab',
    name: 'Lab tenant',
    connector: 'rost',
    controlPlaneUrl: 'https://lab.forge.example',
    status: { state: 'paused', reason: 'Paused by you.', until: '2026-12-03T09:30:00Z' },
    runnerId: 'r-2',
    paused: true,
    active: 0,
  },
  {
    id: 'work-layer',
    name: 'Work Layer (checkout A)',
    connector: 'sechroom',
    controlPlaneUrl: 'https://work.sechroom.example',
    status: { state: 'offline', reason: 'The Work Layer cannot be reached.', retryAt: '2026-12-03T09:00:30Z', fault: 'unreachable' },
    runnerId: 'exi-3',
    paused: false,
    active: 0,
  },
];

const noop = () => {};
const actions: TrayActions = {
  open: noop,
  pause: noop,
  pauseUntilMorning: noop,
  resume: noop,
  pauseAll: noop,
  resumeAll: noop,
  pair: noop,
  quitNow: noop,
  quitAfterTurns: noop,
  cancelQuit: noop,
};
const view = trayView({ status: profiles[0]!.status, paired: true, paused: false, activeTurns: 2, quitting: false, profiles }, now);
const menu = trayMenuTemplate(view.menu, actions);

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
function list(items: MenuItemSpec[]): string {
  return `<ul>${items
    .map((item) =>
      item.type === 'separator'
        ? '<li class="sep"></li>'
        : `<li class="${item.enabled === false ? 'off' : ''}">${esc(item.label ?? '')}${item.submenu ? `<span class="arrow">▸</span>${list(item.submenu)}` : ''}</li>`,
    )
    .join('')}</ul>`;
}
const html = `<!doctype html><meta charset="utf-8"><style>
body{margin:0;padding:16px;background:#dfe3e8;font:14px system-ui,sans-serif}
.menu{display:inline-block;background:#fff;border:1px solid #c5cad1;border-radius:8px;box-shadow:0 6px 24px rgba(0,0,0,.18);padding:4px 0;min-width:360px}
ul{list-style:none;margin:0;padding:0}
li{padding:5px 18px;position:relative;white-space:nowrap}
li.off{color:#6b7280}
li.sep{padding:0;margin:4px 0;border-top:1px solid #e3e6ea}
li>ul{display:none}
li:nth-child(4)>ul{display:block;position:absolute;left:100%;top:-4px;background:#fff;border:1px solid #c5cad1;border-radius:8px;box-shadow:0 6px 24px rgba(0,0,0,.18);padding:4px 0;min-width:180px}
.arrow{float:right;color:#6b7280;margin-left:16px}
h1{font-size:13px;font-weight:600;color:#374151;margin:0 0 8px}
</style><h1>Tray icon: ${esc(view.icon)} · tooltip: ${esc(view.tooltip)}</h1><div class="menu">${list(menu)}</div>`;

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 960, height: 400 } });
await page.setContent(html);
await page.screenshot({ path: 'docs/screenshots/tray-menu-profiles.png' });
await browser.close();
console.log('docs/screenshots/tray-menu-profiles.png');
