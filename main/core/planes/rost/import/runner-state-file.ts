// The state file of `rost runner serve` (Rost CLI 0.7.26+), read so a machine that ran
// the CLI can move to Runner Tray without pairing again. Its shape, from the CLI:
//
//   { "runner_id": "…", "runner_secret": "…", "tenant_id"?: "…", "name"?: "…",
//     "runtime_sessions"?: { "<key>": { "claude_session_id"?: "…", "updated_at"?: "…" } } }
//
// written owner-only, by default at `<tmpdir>/rost-runner-<first 8 hex of sha1(app URL)>.json`
// (or `RUNNER_STATE_FILE`). The CLI does not store the control-plane URL in the file;
// `app_url`/`control_plane_url` are read if someone added them, and otherwise the file
// name can be checked against a URL with `stateFileNameMatches`.
// The CLI drops a malformed `runtime_sessions` map and keeps the rest; so does this parser.
import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import { inspect } from 'node:util';
import { z } from 'zod';

/** Holds a secret without letting it print: `String()`, JSON and `inspect` all show `[REDACTED]`. */
export class SecretValue {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return '[REDACTED]';
  }
  toJSON(): string {
    return '[REDACTED]';
  }
  [inspect.custom](): string {
    return '[REDACTED]';
  }
}

export const RuntimeSessionEntrySchema = z.object({
  claude_session_id: z.string().optional(),
  updated_at: z.string().optional(),
});
export type RuntimeSessionEntry = z.infer<typeof RuntimeSessionEntrySchema>;
const RuntimeSessionsSchema = z.record(z.string(), RuntimeSessionEntrySchema.passthrough());

const StateFileSchema = z
  .object({
    runner_id: z.string({ error: 'runner_id is missing' }).trim().min(1, { error: 'runner_id is empty' }),
    runner_secret: z.string({ error: 'runner_secret is missing' }).min(1, { error: 'runner_secret is empty' }),
    tenant_id: z.string().optional().catch(undefined),
    name: z.string().optional().catch(undefined),
    app_url: z
      .url({ protocol: /^https?$/ })
      .optional()
      .catch(undefined),
    control_plane_url: z
      .url({ protocol: /^https?$/ })
      .optional()
      .catch(undefined),
  })
  .passthrough();

/** What a state file says, without the secret. */
export interface RunnerStateSummary {
  runnerId: string;
  tenantId?: string;
  name?: string;
  controlPlaneUrl?: string;
  runtimeSessions: Record<string, RuntimeSessionEntry>;
}

export type ParsedRunnerState =
  { ok: true; summary: RunnerStateSummary; secret: SecretValue; document: Record<string, unknown>; notes: string[] } | { ok: false; reason: string };

/** Parses the text of a state file; reasons never quote the file. */
export function parseRunnerStateText(text: string): ParsedRunnerState {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'it is not valid JSON' };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { ok: false, reason: 'it does not hold a JSON object' };
  const parsed = StateFileSchema.safeParse(json);
  if (!parsed.success) {
    // Only runner_id and runner_secret can fail (the rest fall back), and their messages are ours:
    // they name the field, never a value.
    return { ok: false, reason: `it is not a runner state file (${parsed.error.issues[0]?.message ?? 'unexpected shape'})` };
  }
  const data = parsed.data;
  const notes: string[] = [];
  const document = json as Record<string, unknown>;
  let runtimeSessions: Record<string, RuntimeSessionEntry> = {};
  if (document.runtime_sessions !== undefined) {
    const sessions = RuntimeSessionsSchema.safeParse(document.runtime_sessions);
    if (sessions.success) {
      runtimeSessions = Object.fromEntries(
        Object.entries(sessions.data).map(([k, v]) => [
          k,
          {
            ...(v.claude_session_id !== undefined ? { claude_session_id: v.claude_session_id } : {}),
            ...(v.updated_at !== undefined ? { updated_at: v.updated_at } : {}),
          },
        ]),
      );
    } else {
      notes.push('runtime_sessions was malformed and was not imported (Claude turns start fresh sessions).');
    }
  }
  const url = data.control_plane_url ?? data.app_url;
  const summary: RunnerStateSummary = {
    runnerId: data.runner_id,
    ...(data.tenant_id ? { tenantId: data.tenant_id } : {}),
    ...(data.name?.trim() ? { name: data.name.trim() } : {}),
    ...(url ? { controlPlaneUrl: url.replace(/\/+$/, '') } : {}),
    runtimeSessions,
  };
  return { ok: true, summary, secret: new SecretValue(data.runner_secret), document, notes };
}

/** The CLI's default file name for an app URL: `rost-runner-<sha1(url) first 8 hex>.json`. */
export function seedStateFileName(appUrl: string): string {
  return `rost-runner-${createHash('sha1').update(appUrl).digest('hex').slice(0, 8)}.json`;
}

/** Where `rost runner serve` keeps its state for `appUrl` when RUNNER_STATE_FILE is not set. */
export function seedStateFilePath(appUrl: string, tmpDir: string): string {
  return join(tmpDir, seedStateFileName(appUrl));
}

/**
 * Whether a state file's default-style name fits `controlPlaneUrl` (tried as given and
 * without a trailing slash). `unknown` for files with another name (RUNNER_STATE_FILE).
 */
export function stateFileNameMatches(file: string, controlPlaneUrl: string): 'matches' | 'differs' | 'unknown' {
  const name = basename(file);
  if (!/^rost-runner-[0-9a-f]{8}\.json$/.test(name)) return 'unknown';
  const candidates = new Set([controlPlaneUrl, controlPlaneUrl.replace(/\/+$/, ''), `${controlPlaneUrl.replace(/\/+$/, '')}/`]);
  return [...candidates].some((u) => seedStateFileName(u) === name) ? 'matches' : 'differs';
}
