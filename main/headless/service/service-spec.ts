import type { EntryCommand } from '../entry-point';
import { hostMallocEnv } from '../malloc-env';

/** What a service runs: the headless host, its arguments and environment, and how long a stop may take. */
export interface ServiceSpec {
  /** Validated: letters, digits, `.`, `_`, `-`; 1–64 characters. */
  name: string;
  entry: EntryCommand;
  /** Arguments after `--` on the install line, passed to the host as they are (e.g. `--execute --state-file …`). */
  hostArgs: string[];
  /** PATH and the `RUNNER_*` variables of the shell that installed it, and the drain limit; never a secret. */
  env: Record<string, string>;
  /** The `RUNNER_*` variables named like secrets (tokens, passwords, keys): kept out of the definition where the platform allows it. */
  secretEnv: Record<string, string>;
  /** RUNNER_TRAY_QUIT_DRAIN_MS: how long a stop lets running turns finish before canceling them. */
  drainMs: number;
}

export const DEFAULT_SERVICE_NAME = 'runner-tray';
export const SERVICE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** After the drain, canceled turns are reported and the outbox flushed: give that this long before a hard kill. */
export const STOP_GRACE_S = 30;

/** The service manager's stop timeout: the drain limit plus the time to report what the drain canceled. */
export function stopTimeoutSeconds(drainMs: number): number {
  return Math.ceil(drainMs / 1000) + STOP_GRACE_S;
}

/** A variable whose value is a credential (RUNNER_TRAY_TOKEN, a *_SECRET, *_PASSWORD, *_API_KEY …); a yes/no switch about the secret store is not. */
export function isSecretName(key: string): boolean {
  if (key === 'RUNNER_TRAY_ALLOW_FILE_SECRET_STORE') return false;
  return /(TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API_KEY|PRIVATE_KEY)/.test(key);
}

/**
 * Variables worth carrying into the service: PATH (to find claude/codex), and the runner's
 * own settings, the secret-named ones apart; and glibc's allocator settings for a host that
 * runs for months (malloc-env.ts).
 */
export function serviceEnvironment(
  env: Record<string, string | undefined>,
  drainMs: number,
  /** A Sechroom profile's variables too: SECHROOM_* (the token among the secrets) and CODEX_BIN, as `sechroom executor run` reads them. */
  planes: { sechroom?: boolean } = {},
): { env: Record<string, string>; secretEnv: Record<string, string> } {
  const out: Record<string, string> = {};
  const secretEnv: Record<string, string> = {};
  if (env.PATH) out.PATH = env.PATH;
  const carried = planes.sechroom ? /^((RUNNER_|ROST_RUNNER_|SECHROOM_)[A-Z0-9_]+|CODEX_BIN)$/ : /^(RUNNER_|ROST_RUNNER_)[A-Z0-9_]+$/;
  for (const [key, value] of Object.entries(env).sort(([a], [b]) => a.localeCompare(b))) {
    if (value === undefined || !carried.test(key)) continue;
    if (key === 'RUNNER_TRAY_QUIT_DRAIN_MS') continue;
    if (isSecretName(key)) secretEnv[key] = value;
    else out[key] = value;
  }
  out.RUNNER_TRAY_QUIT_DRAIN_MS = String(drainMs);
  Object.assign(out, hostMallocEnv(env));
  return { env: out, secretEnv };
}
