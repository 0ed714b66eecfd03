// Secret shapes for redact.ts: well-known token formats, secrets inside URLs, YAML block
// values under secret-named keys, and a secret split over two lines. Linear like the rest
// of redaction: each pass scans the text once.

import { MIN_KNOWN_SECRET_LENGTH, REDACTED } from './redact-marker';

// Runs of token characters, optionally joined by dots (JWTs). Each match consumes a whole
// run, so the scan is linear; the shape is then decided on the run alone.
const TOKEN_RUN = /[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*/g;
const TOKEN_SHAPES: readonly RegExp[] = [
  /^sk-ant-[A-Za-z0-9_-]{20}/, // Anthropic
  /^sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20}/, // OpenAI
  /^(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16}/, // Stripe
  /^gh[pousr]_[A-Za-z0-9]{30}/, // GitHub
  /^github_pat_[A-Za-z0-9_]{22}/,
  /^glpat-[A-Za-z0-9_-]{20}/, // GitLab
  /^xox[abposr]-[A-Za-z0-9-]{10}/, // Slack
  /^(?:AKIA|ASIA)[0-9A-Z]{16}$/, // AWS access key id
  /^AIza[0-9A-Za-z_-]{35}/, // Google API key
  /^ya29\.[A-Za-z0-9_-]{20}/, // Google OAuth access token
  /^hf_[A-Za-z0-9]{30}/, // Hugging Face
  /^SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16}/, // SendGrid
  /^whsec_[A-Za-z0-9]{20}/, // webhook signing secret (Stripe, Svix)
  /^npm_[A-Za-z0-9]{36}/,
  // The control planes' own bearers (emulator/crypto.ts newSecret: `<prefix>_` + 32 random
  // bytes base64url): runner secret, unit MCP token, operator access/refresh tokens, OAuth
  // device code, session cookie, CSRF token.
  // Random, so mixed case; a tool name (`mcp__rost__…`) or an identifier is neither.
  /^(?:rsec|mcp|oat|ort|odc|ses|csrf)_(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z0-9])[A-Za-z0-9_-]{32,}$/,
];

function isJwt(run: string): boolean {
  if (!run.startsWith('eyJ')) return false;
  const parts = run.split('.', 4);
  return parts.length >= 3 && (parts[0] as string).length >= 10 && (parts[1] as string).length >= 4;
}

function isTokenShape(run: string): boolean {
  if (run.length < 14) return false;
  if (isJwt(run)) return true;
  return TOKEN_SHAPES.some((shape) => shape.test(run));
}

/** Where the line after `end` starts, when `end` is a line's end; else -1. */
function nextLineStart(text: string, end: number): number {
  if (text[end] === '\n') return end + 1;
  if (text[end] === '\r' && text[end + 1] === '\n') return end + 2;
  return -1;
}

/**
 * Well-known token shapes. A token that ends its line and goes on at the very start of the
 * next (a wrapped terminal line, a secret printed in two halves) is redacted with its tail.
 */
export function redactTokenShapes(text: string): string {
  TOKEN_RUN.lastIndex = 0;
  let out = '';
  let from = 0;
  let tailAt = -1;
  let m: RegExpExecArray | null;
  while ((m = TOKEN_RUN.exec(text)) !== null) {
    const run = m[0];
    const start = m.index;
    const tail = start === tailAt;
    if (!tail && !isTokenShape(run)) continue;
    out += text.slice(from, start) + REDACTED;
    from = start + run.length;
    // One tail: the line after it is text again.
    tailAt = tail ? -1 : nextLineStart(text, from);
  }
  return from === 0 ? text : out + text.slice(from);
}

const SLACK_WEBHOOK = /(https:\/\/hooks\.slack(?:-gov)?\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9_/-]{8,}/g;
// An Azure shared access signature's `sig` (base64, URL-encoded): in a URL or a SAS token.
const SAS_SIG = /([?&](?:amp;)?sig=)[A-Za-z0-9%+/=_-]{16,}/gi;
// Webhook signing secrets are base64 after the prefix (`+`, `/` end a token run).
const WHSEC = /\bwhsec_[A-Za-z0-9+/=_-]{16,}/g;

/** Secrets that live in URLs and base64 runs: Slack webhook paths, Azure SAS signatures, webhook secrets. */
export function redactUrlSecrets(text: string): string {
  return text
    .replace(SLACK_WEBHOOK, (_m, head: string) => `${head}${REDACTED}`)
    .replace(SAS_SIG, (_m, head: string) => `${head}${REDACTED}`)
    .replace(WHSEC, REDACTED);
}

// `key: |` or `key: >-` (a YAML block scalar), alone on its line, maybe as a list item.
const YAML_BLOCK_KEY = /^([ \t]*)(?:-[ \t]+)?["']?([A-Za-z_][A-Za-z0-9_.-]{0,127})["']?[ \t]*:[ \t]*[|>][-+0-9]{0,3}[ \t]*$/gm;

function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  return i;
}

/** A YAML block value under a secret-named key: each of its lines (more indented than the key) redacted. */
export function redactYamlBlocks(text: string, isSecretKey: (key: string) => boolean): string {
  if (!text.includes('|') && !text.includes('>')) return text;
  YAML_BLOCK_KEY.lastIndex = 0;
  let out = '';
  let from = 0;
  let m: RegExpExecArray | null;
  while ((m = YAML_BLOCK_KEY.exec(text)) !== null) {
    if (!isSecretKey(m[2] as string)) continue;
    const keyIndent = (m[1] as string).length;
    let at = nextLineStart(text, m.index + m[0].length);
    if (at < 0) continue;
    out += text.slice(from, at);
    while (at < text.length) {
      const nl = text.indexOf('\n', at);
      const end = nl < 0 ? text.length : nl;
      const line = text.slice(at, end).replace(/\r$/, '');
      const indent = indentOf(line);
      if (line.trim() !== '' && indent <= keyIndent) break;
      out +=
        line.trim() === ''
          ? text.slice(at, nl < 0 ? end : nl + 1)
          : `${line.slice(0, indent)}${REDACTED}${text.slice(at + line.length, nl < 0 ? end : nl + 1)}`;
      at = nl < 0 ? end : nl + 1;
    }
    from = at;
    YAML_BLOCK_KEY.lastIndex = at;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * Known secrets printed with a line break inside (two halves on two lines of a stream,
 * a wrapped line): each part redacted where it stands, the line breaks kept.
 */
export function redactSplitKnown(text: string, knownSecrets: readonly string[] | undefined): string {
  if (!knownSecrets || knownSecrets.length === 0 || (!text.includes('\n') && !text.includes('\r'))) return text;
  // The text without its line breaks, and where each of its characters came from.
  const origin: number[] = [];
  let joined = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\n' || text[i] === '\r') continue;
    origin.push(i);
    joined += text[i];
  }
  const ranges: [number, number][] = [];
  for (const secret of knownSecrets) {
    if (typeof secret !== 'string' || secret.length < MIN_KNOWN_SECRET_LENGTH || /[\r\n]/.test(secret)) continue;
    for (let at = joined.indexOf(secret); at >= 0; at = joined.indexOf(secret, at + secret.length)) {
      ranges.push([origin[at] as number, (origin[at + secret.length - 1] as number) + 1]);
    }
  }
  if (ranges.length === 0) return text;
  ranges.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0;
  for (const [start, end] of ranges) {
    if (start < from) continue;
    out += text.slice(from, start) + text.slice(start, end).replace(/[^\r\n]+/g, REDACTED);
    from = end;
  }
  return out + text.slice(from);
}
