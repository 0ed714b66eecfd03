import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';

/**
 * A turn's copy of the operator's sign-in file: made anew for every turn (or app-server
 * start) from the operator's file, without the refresh token, and shown to a sandboxed
 * turn read-only. A turn can then use the short-lived access token it was given, but can
 * neither keep the account (nothing long-lived to steal) nor alter the operator's file
 * (it never sees it). The host's own copy is refreshed by the operator's CLI, outside any
 * turn; the next turn's copy carries the new access token.
 *
 * An API key stored in the file (codex `OPENAI_API_KEY`) is the credential itself: with the
 * credential broker on, the copy holds the turn's broker token in its place
 * (broker-lanes.ts); without it, the key stays in the copy, because the CLI sends it as written.
 */
const claudeCredentials = z.looseObject({ claudeAiOauth: z.looseObject({}).optional() });
const codexAuth = z.looseObject({ tokens: z.looseObject({}).nullable().optional() });

const REFRESH_KEYS = new Set(['refreshToken', 'refresh_token']);

function withoutRefresh(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([key]) => !REFRESH_KEYS.has(key)));
}

/** The API key an API-key sign-in stored in codex's auth.json, or null. */
export function storedApiKey(text: string): string | null {
  try {
    const parsed = z.looseObject({ OPENAI_API_KEY: z.string().min(1).nullable().optional() }).safeParse(JSON.parse(text));
    return parsed.success ? (parsed.data.OPENAI_API_KEY ?? null) : null;
  } catch {
    return null;
  }
}

/**
 * The file's content with every refresh token removed (and codex's stored API key replaced
 * by `apiKey` when given); null when it is not the expected JSON.
 */
export function strippedSignIn(kind: 'claude' | 'codex', text: string, apiKey: string | null = null): string | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (kind === 'claude') {
    const parsed = claudeCredentials.safeParse(raw);
    if (!parsed.success) return null;
    const { claudeAiOauth, ...rest } = parsed.data;
    return JSON.stringify(claudeAiOauth ? { ...withoutRefresh(rest), claudeAiOauth: withoutRefresh(claudeAiOauth) } : withoutRefresh(rest));
  }
  const parsed = codexAuth.safeParse(raw);
  if (!parsed.success) return null;
  const { tokens, ...fields } = parsed.data;
  const rest = apiKey !== null && typeof fields.OPENAI_API_KEY === 'string' ? { ...fields, OPENAI_API_KEY: apiKey } : fields;
  return JSON.stringify(tokens ? { ...withoutRefresh(rest), tokens: withoutRefresh(tokens) } : withoutRefresh(rest));
}

/** A sign-in file's text, or null when there is none to read. */
export async function readSignIn(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * Writes the turn's copy of a sign-in file's `text` to `target` (0400). A file that is not
 * the expected JSON is not copied at all: passing it through could pass a refresh token through.
 */
export async function writeSignInCopy(kind: 'claude' | 'codex', text: string | null, target: string, apiKey: string | null = null): Promise<boolean> {
  const copy = text === null ? null : strippedSignIn(kind, text, apiKey);
  if (copy === null) return false;
  await writeFile(target, copy, { mode: 0o400, flag: 'wx' });
  return true;
}
