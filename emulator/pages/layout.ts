import type { OperatorRecord } from '../domain/identity';
import { html, type SafeHtml } from './html';

export interface LayoutOptions {
  operator?: OperatorRecord | null;
  csrf?: string | undefined;
}

export function layout(title: string, body: SafeHtml, opts: LayoutOptions = {}): string {
  const who = opts.operator
    ? html`<span
        >Signed in as <strong>${opts.operator.name}</strong> <span class="muted">(${opts.operator.role})</span>
        <form method="post" action="/signout">
          <input type="hidden" name="csrf" value="${opts.csrf ?? ''}" /> <button class="link" type="submit">Sign out</button>
        </form></span
      >`
    : html`<a href="/signin">Sign in</a>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Control plane emulator</title>
        <link rel="stylesheet" href="/_assets/emulator.css" />
      </head>
      <body>
        <header><span class="brand">Control plane emulator</span>${who}</header>
        <main>${body}</main>
      </body>
    </html>`.value;
}

export function notice(kind: 'error' | 'ok' | 'info', text: string): SafeHtml {
  return html`<div class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</div>`;
}
