// Redaction of secret-shaped text, shared by the core (logs, summaries, output
// tails) and anything else that shows text a runtime or a server produced.
//
// Every pass is linear in the input: patterns either start at a literal, are
// bounded, or consume whole runs of a character class so that a failed match
// never rescans the same run. Inputs of several megabytes stay fast, including
// adversarial ones (see tests/core/logging/redact.test.ts).
//
// Replacements never remove a backslash or a double quote that was not part
// of the secret itself, so a JSON log line stays valid JSON after redaction.

import { MIN_KNOWN_SECRET_LENGTH, REDACTED } from './redact-marker';
import { redactSplitKnown, redactTokenShapes, redactUrlSecrets, redactYamlBlocks } from './redact-shapes';

export { MIN_KNOWN_SECRET_LENGTH, REDACTED };

// Words that make a key secret wherever they appear in it (`db_password`, `clientSecret`).
const STRONG_WORDS = new Set([
  'secret',
  'secrets',
  'password',
  'passwords',
  'passwd',
  'passphrase',
  'pwd',
  'credential',
  'credentials',
  'authorization',
  'cookie',
  'cookies',
  'apikey',
  'privatekey',
]);
// A key ending in one of these describes a secret without holding it
// (`active_secret_grant_count`, `secretBackend`, `password_file`).
const SAFE_LAST_WORDS = new Set([
  'id',
  'ids',
  'count',
  'counts',
  'type',
  'kind',
  'name',
  'names',
  'ref',
  'refs',
  'metadata',
  'meta',
  'url',
  'uri',
  'path',
  'file',
  'dir',
  'at',
  'expires',
  'expiry',
  'length',
  'len',
  'hint',
  'grant',
  'grants',
  'policy',
  'policies',
  'required',
  'present',
  'status',
  'backend',
  'store',
  'storage',
  'source',
  'mode',
  'label',
  'configured',
  'set',
  'enabled',
  'exists',
  'ttl',
  'ms',
  'version',
  'format',
]);
const KEY_QUALIFIERS = new Set(['api', 'private', 'secret', 'access', 'signing', 'encryption', 'client', 'master']);
// Keys whose values are redacted only when they look like a token (`key=<40 hex>`, `code=<jwt>`).
const WEAK_LAST_WORDS = new Set(['key', 'sig', 'signature', 'hmac', 'code']);

type KeyClass = 'strong' | 'weak' | 'none';

function splitKeyWords(key: string): string[] {
  const tail = key.length > 128 ? key.slice(-128) : key;
  return tail
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

interface KeyInfo {
  cls: KeyClass;
  /** Header-like keys have values with spaces (`Bearer abc`); cookies also have `;`. */
  header: 'authorization' | 'cookie' | null;
}
// Logs repeat the same few keys; remembering them keeps big inputs fast.
const keyCache = new Map<string, KeyInfo>();

function keyInfo(key: string): KeyInfo {
  const cached = keyCache.get(key);
  if (cached !== undefined) return cached;
  const words = splitKeyWords(key);
  const header = words.includes('authorization') ? 'authorization' : words.some((w) => w.startsWith('cookie')) ? 'cookie' : null;
  const info: KeyInfo = { cls: classifyKeyWords(words), header };
  if (key.length <= 64) {
    if (keyCache.size >= 1024) keyCache.clear();
    keyCache.set(key, info);
  }
  return info;
}

function classifyKeyWords(words: readonly string[]): KeyClass {
  const last = words[words.length - 1];
  if (last === undefined) return 'none';
  if (SAFE_LAST_WORDS.has(last)) return 'none';
  if (words.some((w) => STRONG_WORDS.has(w))) return 'strong';
  // Run-together names (`clientsecret`, `accesstoken`) count only as the last word.
  if (/(?:secret|password|passwd|token|apikey)$/.test(last) || last === 'auth') return 'strong';
  const prev = words[words.length - 2];
  if (last === 'key' && prev !== undefined && KEY_QUALIFIERS.has(prev)) return 'strong';
  return WEAK_LAST_WORDS.has(last) ? 'weak' : 'none';
}

/** Whether a field or header named `key` holds a secret (`runner_secret`, `apiKey`, `Authorization`). */
export function isSecretKey(key: string): boolean {
  return keyInfo(key).cls === 'strong';
}

function looksLikeToken(value: string): boolean {
  return value.length >= 32 && value.length <= 4096 && /^[A-Za-z0-9_\-+/=.~]+$/.test(value) && /[0-9]/.test(value) && /[A-Za-z]/.test(value);
}

function utf8Bytes(text: string): number[] {
  const bytes: number[] = [];
  for (const ch of text) {
    const c = ch.codePointAt(0) as number;
    if (c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return bytes;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function base64(bytes: readonly number[]): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]! + B64[(n >> 6) & 63]! + B64[n & 63]!;
  }
  return out;
}

/**
 * The base64 text a secret turns into wherever it sits in an encoded stream: for each of
 * the three alignments, only the characters made of the secret's own bits (so the form is
 * found whatever came before or after it), in the standard and the URL-safe alphabet.
 */
function base64Forms(secret: string): string[] {
  const bytes = utf8Bytes(secret);
  const forms: string[] = [];
  for (let k = 0; k < 3; k++) {
    const encoded = base64([...Array.from({ length: k }, () => 0), ...bytes]);
    const form = encoded.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6));
    forms.push(form, form.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

function redactKnown(text: string, knownSecrets: readonly string[] | undefined): string {
  if (!knownSecrets || knownSecrets.length === 0) return text;
  const forms = new Set<string>();
  for (const secret of knownSecrets) {
    if (typeof secret !== 'string' || secret.length < MIN_KNOWN_SECRET_LENGTH) continue;
    forms.add(JSON.stringify(secret).slice(1, -1)); // as it appears inside JSON text
    forms.add(secret);
    try {
      const encoded = encodeURIComponent(secret); // as it appears in a query string
      forms.add(encoded);
      forms.add(encoded.replace(/%20/g, '+')); // form encoding
      forms.add(encodeURIComponent(encoded)); // encoded twice (a URL inside a URL)
    } catch {
      // lone surrogates cannot be URI-encoded; the verbatim form is still covered
    }
    // Sent out base64- or hex-encoded: long enough forms only (a short run of base64 is ordinary text).
    for (const form of base64Forms(secret)) if (form.length >= 12) forms.add(form);
    const hex = utf8Bytes(secret)
      .map((b) => b.toString(16).padStart(2, '0'))
      .join('');
    forms.add(hex);
    forms.add(hex.toUpperCase());
  }
  // Longest first, so a secret that contains another is replaced whole.
  const ordered = [...forms].filter((f) => f.length >= MIN_KNOWN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  let out = text;
  for (const form of ordered) {
    if (out.includes(form)) out = out.split(form).join(REDACTED);
  }
  return out;
}

function redactPem(text: string): string {
  if (!text.includes('-----BEGIN')) return text;
  let out = '';
  let from = 0;
  for (;;) {
    const begin = text.indexOf('-----BEGIN ', from);
    if (begin < 0) break;
    const headerEnd = text.indexOf('-----', begin + 11);
    const header = headerEnd < 0 ? '' : text.slice(begin + 11, headerEnd);
    if (headerEnd < 0 || headerEnd - begin > 80 || !header.includes('PRIVATE KEY')) {
      out += text.slice(from, begin + 11);
      from = begin + 11;
      continue;
    }
    const endMarker = text.indexOf(`-----END ${header}-----`, headerEnd + 5);
    let stop: number;
    if (endMarker >= 0) {
      stop = endMarker + header.length + 14;
    } else {
      // Unterminated (a cut tail): redact to the end, or to the end of the enclosing JSON string.
      stop = headerEnd + 5;
      while (stop < text.length) {
        const c = text[stop];
        if (c === '"' || (c === '\\' && text[stop + 1] === '"')) break;
        stop += c === '\\' ? 2 : 1;
      }
      stop = Math.min(stop, text.length);
    }
    out += text.slice(from, begin) + REDACTED;
    from = stop;
  }
  return out + text.slice(from);
}

const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]{0,20}:\/\/)([^\s/:@"'\\]{1,256}):([^\s/@"'\\]{1,256})@/gi;
const BEARER = /\b(bearer)([ \t]{1,8})(?!\[REDACTED\])([A-Za-z0-9\-._~+/]{8,}=*)/gi;

// A key: a run of identifier characters that starts a run (lookbehind), then an optional
// closing quote (plain or JSON-escaped), then `:` or `=`. Bounded whitespace on both sides.
const KEY = /(?<![A-Za-z0-9_.-])([A-Za-z][A-Za-z0-9_.-]*)(\\?["']?)[ \t]{0,8}([:=])[ \t]{0,8}/g;

function findQuotedEnd(text: string, start: number, quote: string): number {
  // `start` is just past the opening quote; returns the index of the closing quote, or -1.
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === quote) return i;
    if (c === '\n' || c === '\r') return -1;
  }
  return -1;
}

function scanRun(text: string, start: number, stopChars: string): number {
  let i = start;
  while (i < text.length && !stopChars.includes(text[i] as string) && text.charCodeAt(i) > 32) i++;
  return i;
}

const UNQUOTED_STOP = `"'\\,;&)}]<>`;
const HEADER_STOP = `"'\\,;`; // header values have spaces: `Bearer abc`, `Basic xyz`

function headerValueEnd(text: string, start: number, stop: string): number {
  let i = start;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '\n' || c === '\r' || stop.includes(c)) break;
    i++;
  }
  while (i > start && (text[i - 1] === ' ' || text[i - 1] === '\t')) i--;
  return i;
}

function redactKeyValues(text: string): string {
  KEY.lastIndex = 0;
  let out = '';
  let from = 0;
  let runFrom = -1;
  let runTo = -1;
  let weakSeenTo = -1;
  let m: RegExpExecArray | null;
  while ((m = KEY.exec(text)) !== null) {
    const { cls, header } = keyInfo(m[1] as string);
    const valueStart = KEY.lastIndex;
    if (cls === 'none' || text.startsWith(REDACTED, valueStart)) continue;
    let contentStart = valueStart;
    let contentEnd = valueStart;
    const c0 = text[valueStart];
    if (cls === 'weak' && valueStart < weakSeenTo) continue; // inside a weak value already judged
    if (c0 === '\\' && (text[valueStart + 1] === '"' || text[valueStart + 1] === "'")) {
      const close = text.indexOf(`\\${text[valueStart + 1]}`, valueStart + 2);
      if (close < 0 || text.slice(valueStart, close).includes('\n')) continue;
      contentStart = valueStart + 2;
      contentEnd = close;
    } else if (c0 === '"' || c0 === "'") {
      const close = findQuotedEnd(text, valueStart + 1, c0);
      contentStart = valueStart + 1;
      contentEnd = close >= 0 ? close : headerValueEnd(text, contentStart, `${c0}\\`);
    } else if (c0 === '{' || c0 === '[' || c0 === undefined) {
      continue;
    } else if (header !== null) {
      contentEnd = headerValueEnd(text, valueStart, header === 'authorization' ? HEADER_STOP : `"'\\`);
    } else {
      // Where an unquoted run ends does not depend on where in it we start: remember it, so
      // keys nested in one long run (`key=key=key=…`) do not rescan it.
      if (valueStart <= runFrom || valueStart >= runTo) {
        runFrom = valueStart;
        runTo = scanRun(text, valueStart, UNQUOTED_STOP);
      }
      contentEnd = runTo;
    }
    const value = text.slice(contentStart, contentEnd);
    if (value.length === 0 || value === 'null' || value === 'true' || value === 'false' || value === REDACTED) {
      continue;
    }
    if (cls === 'weak' && !looksLikeToken(value)) {
      weakSeenTo = contentEnd;
      continue;
    }
    out += text.slice(from, contentStart) + REDACTED;
    from = contentEnd;
    KEY.lastIndex = contentEnd;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * Replaces secret-shaped values in `text` with `[REDACTED]`: the `knownSecrets` verbatim
 * (also JSON-, URL-, base64- and hex-encoded, and split across lines), bearer tokens,
 * `Authorization`/`Cookie` header values, values of secret-named keys in JSON, YAML (block
 * values too), env and query-string syntax, credentials in URLs, Slack webhook paths and
 * Azure SAS signatures, PEM private keys, and well-known API key and JWT shapes (with a
 * tail wrapped onto the next line).
 *
 * Redaction catches what looks like a secret; it cannot stop a turn that encodes one on
 * purpose. That is stopped by the turn never holding a long-lived credential.
 */
export function redactText(text: string, knownSecrets?: readonly string[]): string {
  if (typeof text !== 'string' || text.length === 0) return text;
  let out = redactKnown(text, knownSecrets);
  out = redactSplitKnown(out, knownSecrets);
  out = redactPem(out);
  out = out.replace(URL_CREDENTIALS, (_m, scheme: string, user: string) => `${scheme}${user}:${REDACTED}@`);
  out = redactUrlSecrets(out);
  out = redactYamlBlocks(out, isSecretKey);
  out = redactKeyValues(out);
  out = out.replace(BEARER, (_m, word: string, gap: string) => `${word}${gap}${REDACTED}`);
  return redactTokenShapes(out);
}

const MAX_DEPTH = 32;

/**
 * A deep copy of `value` safe to log or show: values under secret-named keys become
 * `[REDACTED]`, every string goes through `redactText`, errors become plain objects,
 * cycles become `[Circular]`. Returns plain JSON-like data.
 */
export function redactValue(value: unknown, knownSecrets?: readonly string[]): unknown {
  const seen = new WeakSet<object>();
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return redactText(v, knownSecrets);
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'function' || typeof v === 'symbol') return undefined;
      return v;
    }
    if (seen.has(v)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[Truncated]';
    if (ArrayBuffer.isView(v)) return `[binary ${v.byteLength} bytes]`;
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
    seen.add(v);
    try {
      if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
      const out: Record<string, unknown> = {};
      if (v instanceof Error) {
        out.type = v.name;
        out.message = redactText(v.message, knownSecrets);
        if (typeof v.stack === 'string') out.stack = redactText(v.stack, knownSecrets);
      }
      for (const [k, item] of Object.entries(v)) {
        const { cls } = keyInfo(k);
        if (cls === 'strong' && item !== null && item !== undefined && typeof item !== 'boolean') {
          out[k] = REDACTED;
        } else if (cls === 'weak' && typeof item === 'string' && looksLikeToken(item)) {
          out[k] = REDACTED;
        } else {
          out[k] = walk(item, depth + 1);
        }
      }
      return out;
    } finally {
      seen.delete(v);
    }
  };
  return walk(value, 0);
}
