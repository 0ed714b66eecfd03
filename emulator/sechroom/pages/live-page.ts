import { html, localTime, type SafeHtml } from '../../pages/html';
import type { SechroomAdmin } from '../admin/sechroom-admin';

const REFRESH_S = 2;

type Tone = 'ok' | 'error' | '';
const TONE: Record<string, Tone> = {
  live: 'ok',
  active: 'ok',
  pass: 'ok',
  completed: 'ok',
  lapsed: 'error',
  expired: 'error',
  canceled: 'error',
  blocked: 'error',
  'plan-invalid': 'error',
};
const pill = (text: string): SafeHtml => html`<span class="pill ${TONE[text] ?? ''}">${text}</span>`;
const clip = (text: string, max = 160) => (text.length > max ? `${text.slice(0, max)}…` : text);

function table(id: string, title: string, head: string[], rows: SafeHtml[], empty: string): SafeHtml {
  return html`<section class="card" id="${id}">
    <h1>${title}</h1>
    ${
      rows.length
        ? html`<table class="grid">
            <thead>
              <tr>
                ${head.map((h) => html`<th>${h}</th>`)}
              </tr>
            </thead>
            <tbody>
              ${rows}
            </tbody>
          </table>`
        : html`<p class="muted">${empty}</p>`
    }
  </section>`;
}

/**
 * The Work Layer at a glance: instances, open offers, leases and completions. It reloads itself
 * every few seconds (a meta refresh: the page CSP allows no script). All values are escaped text.
 */
export function livePage(admin: SechroomAdmin): string {
  const body = html` <div class="card">
      <h1>Sechroom Work Layer</h1>
      <p class="muted">Live view, refreshed every ${REFRESH_S} s. API base <code>/sechroom</code>; admin API <code>/_emulator/sechroom/</code>.</p>
    </div>
    ${instancesTable(admin)} ${offersTable(admin)} ${leasesTable(admin)} ${completionsTable(admin)}`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta http-equiv="refresh" content="${REFRESH_S}" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Sechroom Work Layer · Control plane emulator</title>
        <link rel="stylesheet" href="/_assets/emulator.css" />
      </head>
      <body>
        <header><span class="brand">Control plane emulator · Sechroom Work Layer</span><a href="/">Home</a></header>
        <main class="wide">${body}</main>
      </body>
    </html>`.value;
}

/** Registered executor instances. */
function instancesTable(admin: SechroomAdmin): SafeHtml {
  const instances = admin.listInstances().reverse();
  return table(
    'instances',
    'Executor instances',
    ['instance', 'key', 'lane', 'capabilities', 'status', 'expires', 'last claim'],
    instances.map(
      (i) =>
        html`<tr>
          <td><code>${i.id}</code></td>
          <td>${i.instanceKey}</td>
          <td>${i.laneId}</td>
          <td>${(i.claimedCapabilityKeys ?? []).join(', ')}</td>
          <td>${pill(i.status ?? '')}</td>
          <td>${localTime(i.expiresAt)}</td>
          <td>${localTime(i.lastClaimAt)}</td>
        </tr>`,
    ),
    'No executor instance has registered.',
  );
}

/** Offers waiting to be claimed. */
function offersTable(admin: SechroomAdmin): SafeHtml {
  const offers = admin.openOffers();
  return table(
    'offers',
    'Open offers',
    ['task', 'title', 'generation', 'lane', 'eligible instances'],
    offers.map(
      (o) =>
        html`<tr>
          <td><code>${o.memoryId}</code></td>
          <td>${o.title ?? ''}</td>
          <td><code>${o.generationId}</code></td>
          <td>${o.laneId ?? 'any'}</td>
          <td>${o.eligibleInstances.length}</td>
        </tr>`,
    ),
    'Nothing is waiting to be claimed.',
  );
}

/** The latest leases. */
function leasesTable(admin: SechroomAdmin): SafeHtml {
  const leases = admin.listLeases().reverse().slice(0, 50);
  return table(
    'leases',
    'Leases',
    ['lease', 'task', 'instance', 'status', 'heartbeats', 'expires / ended', 'cancel'],
    leases.map(
      (l) =>
        html`<tr>
          <td><code>${l.id}</code></td>
          <td><code>${l.memoryId}</code></td>
          <td><code>${l.executorInstanceId}</code></td>
          <td>${pill(l.status)}${l.endReason ? html` <span class="muted">${l.endReason}</span>` : ''}</td>
          <td>${l.heartbeats}</td>
          <td>${l.status === 'active' ? localTime(l.expiresAt) : html`ended ${localTime(l.endedAt, '')}`}</td>
          <td>${l.cancelRequested ? `requested (${l.cancelReason ?? ''})` : '—'}</td>
        </tr>`,
    ),
    'No lease yet.',
  );
}

/** The latest completions. */
function completionsTable(admin: SechroomAdmin): SafeHtml {
  const completions = admin.listCompletions().reverse().slice(0, 50);
  return table(
    'completions',
    'Completions',
    ['completion', 'task', 'verdict', 'title', 'source', 'text', 'received'],
    completions.map(
      (c) =>
        html`<tr>
          <td><code>${c.completionMemoryId}</code></td>
          <td><code>${c.memoryId}</code></td>
          <td>${pill(c.verdict)}</td>
          <td>${c.title}</td>
          <td>${c.source}</td>
          <td>${clip(c.text)}</td>
          <td>${localTime(c.receivedAt)}</td>
        </tr>`,
    ),
    'No task has been completed.',
  );
}
