/** Markup that is already safe; anything else interpolated into `html` is escaped. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (ch) => ESCAPES[ch]!);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(typeof value === 'object' ? JSON.stringify(value) : String(value as string | number | boolean | bigint | symbol));
}

/** Tagged template: every interpolated value is HTML-escaped unless it is SafeHtml. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new SafeHtml(out);
}

export const STYLESHEET = `
:root { color-scheme: light dark; --fg: #1d2330; --muted: #5b6475; --bg: #f6f7f9; --card: #fff; --line: #dde1e8;
  --accent: #2f5bd3; --danger: #b3261e; --ok: #1f7a3a; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8ebf1; --muted: #9aa3b5; --bg: #14171d; --card: #1c2029; --line: #2c3240;
  --accent: #7c9bff; --danger: #ff8a80; --ok: #7bd88f; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; justify-content: space-between; align-items: center; padding: 12px 24px; border-bottom: 1px solid var(--line); }
header .brand { font-weight: 600; }
header form { display: inline; }
main { max-width: 560px; margin: 32px auto; padding: 0 16px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 24px; margin-bottom: 16px; }
h1 { font-size: 1.35rem; margin: 0 0 12px; }
p.muted, .muted { color: var(--muted); }
label { display: block; font-weight: 600; margin: 12px 0 4px; }
input[type=text], select { width: 100%; padding: 10px 12px; font: inherit; border: 1px solid var(--line); border-radius: 8px;
  background: var(--bg); color: var(--fg); }
input.code { font: 600 1.4rem/1 ui-monospace, monospace; letter-spacing: 0.12em; text-transform: uppercase; }
button { font: inherit; padding: 9px 18px; border-radius: 8px; border: 1px solid var(--line); background: var(--card); color: var(--fg); cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { color: var(--danger); border-color: var(--danger); }
button.link { border: none; background: none; color: var(--accent); padding: 0; }
.actions { display: flex; gap: 12px; margin-top: 20px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 6px 16px; margin: 16px 0 0; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
.notice { padding: 10px 14px; border-radius: 8px; border: 1px solid var(--line); margin-bottom: 16px; }
.notice.error { border-color: var(--danger); color: var(--danger); }
.notice.ok { border-color: var(--ok); color: var(--ok); }
ul.operators { list-style: none; padding: 0; margin: 0; }
ul.operators li { display: flex; justify-content: space-between; align-items: center; padding: 8px 0; border-bottom: 1px solid var(--line); }
code { font-family: ui-monospace, monospace; }
main.wide { max-width: 1200px; }
table.grid { width: 100%; border-collapse: collapse; font-size: 0.9rem; }
table.grid th, table.grid td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: anywhere; }
table.grid th { color: var(--muted); font-weight: 600; white-space: nowrap; }
table.grid td code { white-space: nowrap; }
.pill { display: inline-block; padding: 1px 8px; border-radius: 999px; border: 1px solid var(--line); font-size: 0.8rem; }
.pill.ok { color: var(--ok); border-color: var(--ok); }
.pill.error { color: var(--danger); border-color: var(--danger); }
`;

const LOCAL = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/**
 * A time as the person at this machine reads it (the emulator serves loopback only, so its
 * time zone is theirs), the exact ISO instant kept in `datetime` and the tooltip.
 */
export function localTime(iso: string | null | undefined, empty = '—'): SafeHtml {
  if (!iso) return html`${empty}`;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return html`${iso}`;
  return html`<time datetime="${iso}" title="${iso}">${LOCAL.format(at)}</time>`;
}
