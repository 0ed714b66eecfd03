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
 * What this does not cover: an API key stored in the file (codex `OPENAI_API_KEY`) is
 * the credential itself and stays in the copy, because the CLI sends it as written.
 */
const claudeCredentials = z.looseObject({ claudeAiOauth: z.looseObject({}).optional() });
const codexAuth = z.looseObject({ tokens: z.looseObject({}).nullable().optional() });

const REFRESH_KEYS = new Set(['refreshToken', 'refresh_token']);

function withoutRefresh(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([key]) => !REFRESH_KEYS.has(key)));
}

/** The file's content with every refresh token removed; null when it is not the expected JSON. */
export function strippedSignIn(kind: 'claude' | 'codex', text: string): string | null {
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
  const { tokens, ...rest } = parsed.data;
  return JSON.stringify(tokens ? { ...withoutRefresh(rest), tokens: withoutRefresh(tokens) } : withoutRefresh(rest));
}

/**
 * Writes the turn's copy of `source` to `target` (0400). A file that is not the expected
 * JSON is not copied at all: passing it through could pass a refresh token through.
 */
export async function writeSignInCopy(kind: 'claude' | 'codex', source: string, target: string): Promise<boolean> {
  let text: string;
  try {
    text = await readFile(source, 'utf8');
  } catch {
    return false;
  }
  const copy = strippedSignIn(kind, text);
  if (copy === null) return false;
  await writeFile(target, copy, { mode: 0o400, flag: 'wx' });
  return true;
}
