import type { IncomingMessage } from 'node:http';
import type { BodyMode } from './router';
import { HttpError, badRequest } from './reply';

const MAX_DEPTH = 64;
/** Past this we stop draining an oversized body and drop the connection. */
const DRAIN_CAP_BYTES = 16 * 1024 * 1024;

export class PayloadTooLarge extends HttpError {
  constructor(
    limit: number,
    readonly dropConnection: boolean,
  ) {
    super(413, 'payload_too_large', `body exceeds ${limit} bytes`);
  }
}

/** Reads the whole body, refusing more than `limit` bytes (drained so the client can read the 413). */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > DRAIN_CAP_BYTES) throw new PayloadTooLarge(limit, true);
  const chunks: Buffer[] = [];
  let total = 0;
  let tooLarge = false;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    total += buf.length;
    if (total > DRAIN_CAP_BYTES) throw new PayloadTooLarge(limit, true);
    if (total > limit) tooLarge = true;
    if (!tooLarge) chunks.push(buf);
  }
  if (tooLarge) throw new PayloadTooLarge(limit, false);
  return Buffer.concat(chunks);
}

function isJsonType(contentType: string): boolean {
  return /^application\/([\w.+-]*\+)?json\b/i.test(contentType);
}

function isFormType(contentType: string): boolean {
  return /^application\/x-www-form-urlencoded\b/i.test(contentType);
}

export function parseBody(raw: Buffer, mode: BodyMode, contentType: string | undefined): unknown {
  if (mode === 'none') return {};
  const text = raw.toString('utf8');
  if (text.trim() === '') return {};
  const type = contentType ?? '';
  const asForm = mode === 'form' || (mode === 'json-or-form' && isFormType(type));
  if (asForm) {
    if (type && !isFormType(type)) throw new HttpError(415, 'unsupported_media_type', 'expected application/x-www-form-urlencoded');
    const out: Record<string, string> = Object.create(null);
    for (const [key, value] of new URLSearchParams(text)) {
      if (FORBIDDEN_KEYS.has(key)) throw badRequest(`body: forbidden key "${key}"`);
      if (!(key in out)) out[key] = value;
    }
    return out;
  }
  if (type && !isJsonType(type)) throw new HttpError(415, 'unsupported_media_type', 'expected application/json');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'invalid_json', 'body: not valid JSON');
  }
  checkShape(value);
  if (mode !== 'json-any' && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    throw badRequest('body: expected a JSON object');
  }
  return value;
}

/** Keys no protocol body uses and that only ever serve prototype pollution. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Iterative walk (no recursion to blow up): bounded depth, no prototype-pollution keys. */
function checkShape(root: unknown): void {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 0 }];
  while (stack.length) {
    const { value, depth } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_DEPTH) throw badRequest(`body: nested deeper than ${MAX_DEPTH} levels`);
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key)) throw badRequest(`body: forbidden key "${key}"`);
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1 });
    }
  }
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!name || name === '__proto__') continue;
    try {
      out[name] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      // a cookie we did not set; ignore it
    }
  }
  return out;
}
