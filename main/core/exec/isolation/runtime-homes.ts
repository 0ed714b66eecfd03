import { existsSync, realpathSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { codexTurnConfig, providerEnvNames } from './codex-config';
import { restoreClaudeSession } from './claude-sessions';
import { brokerClaude, brokerCodex } from './broker-lanes';
import type { CredentialBroker } from './credential-broker';
import { readSignIn, storedApiKey, writeSignInCopy } from './sign-in-copy';
import type { SignInFile } from './spec';

/**
 * Where each runtime keeps its configuration and sign-in, and what a turn gets of it.
 *
 * claude (checked in claude 2.1.197): CLAUDE_CONFIG_DIR (default ~/.claude) holds the
 * settings, hooks, MCP servers, CLAUDE.md, history and `.claude.json`; the sign-in lives
 * in `<dir>/.credentials.json` (on macOS in the Keychain), found through
 * CLAUDE_SECURESTORAGE_CONFIG_DIR when that is set. That variable also names the Keychain
 * item: unset or empty and without CLAUDE_CONFIG_DIR it is "Claude Code-credentials" in
 * ~/.claude; set to a folder, the name gets a hash of that folder as it was written, as
 * the operator's own claude computes it from their CLAUDE_CONFIG_DIR. So the turn gets
 * the operator's value as written, or the empty string for the default. A turn gets a config
 * dir of its own, new and empty, inside its turn folder (gone with the turn), holding at most
 * the transcript of the session it resumes (claude-sessions.ts); the operator's folder is
 * only its secure-storage folder. Under bubblewrap its `.credentials.json` is the turn's
 * own copy without the refresh token (sign-in-copy.ts), bound read-only where claude
 * looks for it: the operator's file is never inside the sandbox.
 *
 * codex (checked in codex-cli 0.171.0): CODEX_HOME (default ~/.codex) holds config.toml
 * (MCP servers, notify, profiles, shell policy), AGENTS.md, rules, sessions and
 * `auth.json` (the sign-in; written in place when refreshed). A turn gets a private
 * CODEX_HOME in its own directory: a generated config.toml and its own copy of the
 * operator's auth.json without the refresh token (read-only under a sandbox).
 */
export interface RuntimeHome {
  env: Record<string, string>;
  signIn: SignInFile[];
  /** Private state folders of the runtime (read-write for the turn). */
  writable: string[];
  /** Extra command-line options (codex: ignore the operator's rules). */
  args: string[];
  /** Variables the runtime needs beyond the allowlist (codex: its model provider's key variable). */
  allowEnv?: string[];
}

export const CLAUDE_CREDENTIALS_FILE = '.credentials.json';
export const CODEX_AUTH_FILE = 'auth.json';
export const CLAUDE_PRIVATE_CONFIG = 'claude-config';
export const CODEX_PRIVATE_HOME = 'codex-home';

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

export function operatorClaudeDir(env: Readonly<Record<string, string | undefined>>, home: string): string {
  return real(env.CLAUDE_SECURESTORAGE_CONFIG_DIR || env.CLAUDE_CONFIG_DIR || path.join(home, '.claude'));
}

export function operatorCodexHome(env: Readonly<Record<string, string | undefined>>, home: string): string {
  return real(env.CODEX_HOME || path.join(home, '.codex'));
}

async function privateDir(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  return real(dir);
}

export const SIGN_IN_COPY_DIR = 'sign-in';

export async function claudeHome(input: {
  /** The executor's root: the kept session transcripts live there. */
  workRoot: string;
  /** The turn's own folder: its config dir and sign-in copy live there and go with it. */
  turnRoot: string;
  /** The session the turn resumes: its transcript is put into the new config dir. */
  resumeSessionId?: string | null;
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  sandboxed: boolean;
  /** Stands in for API keys and auth tokens (sandboxed turns only). */
  broker?: CredentialBroker | undefined;
}): Promise<RuntimeHome> {
  const operatorDir = operatorClaudeDir(input.env, input.home);
  const config = await privateDir(path.join(input.turnRoot, CLAUDE_PRIVATE_CONFIG));
  if (input.resumeSessionId) await restoreClaudeSession(input.workRoot, config, input.resumeSessionId);
  const credentials = path.join(operatorDir, CLAUDE_CREDENTIALS_FILE);
  const secureStorage = input.env.CLAUDE_SECURESTORAGE_CONFIG_DIR ?? input.env.CLAUDE_CONFIG_DIR ?? '';
  const signIn: SignInFile[] = [];
  if (input.sandboxed && existsSync(credentials)) {
    const copy = path.join(await privateDir(path.join(input.turnRoot, SIGN_IN_COPY_DIR)), CLAUDE_CREDENTIALS_FILE);
    if (await writeSignInCopy('claude', await readSignIn(credentials), copy)) signIn.push({ source: copy, target: credentials, writable: false });
  }
  const brokered = input.sandboxed ? await brokerClaude(input.broker, input.turnRoot, input.env) : null;
  return {
    env: { CLAUDE_CONFIG_DIR: config, CLAUDE_SECURESTORAGE_CONFIG_DIR: secureStorage, DISABLE_AUTOUPDATER: '1', ...brokered },
    signIn,
    writable: [config],
    args: [],
  };
}

export async function codexHome(input: {
  turnRoot: string;
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  sandboxed: boolean;
  /** Stands in for API keys (sandboxed turns only). */
  broker?: CredentialBroker | undefined;
}): Promise<RuntimeHome> {
  const operatorHome = operatorCodexHome(input.env, input.home);
  const own = await privateDir(path.join(input.turnRoot, CODEX_PRIVATE_HOME));
  let operatorConfig: string | null = null;
  try {
    operatorConfig = await readFile(path.join(operatorHome, 'config.toml'), 'utf8');
  } catch {
    operatorConfig = null;
  }
  const auth = path.join(operatorHome, CODEX_AUTH_FILE);
  const authText = await readSignIn(real(auth));
  const config = codexTurnConfig(operatorConfig);
  const brokered = input.sandboxed
    ? await brokerCodex(input.broker, input.turnRoot, { config, env: input.env, storedApiKey: authText === null ? null : storedApiKey(authText) })
    : null;
  await writeFile(path.join(own, 'config.toml'), brokered?.config ?? config, { mode: 0o600 });
  const target = path.join(own, CODEX_AUTH_FILE);
  const signIn: SignInFile[] = [];
  // The copy sits in the turn's writable folder: bound over itself read-only under a sandbox.
  if (authText !== null && (await writeSignInCopy('codex', authText, target, brokered?.storedKey ?? null)) && input.sandboxed) {
    signIn.push({ source: real(target), target: real(target), writable: false });
  }
  return {
    env: { CODEX_HOME: own, ...brokered?.env },
    signIn,
    writable: [],
    args: ['--ignore-rules'],
    allowEnv: providerEnvNames(operatorConfig),
  };
}

/**
 * The folder a runtime is installed in, to show read-only: for an npm package the
 * `node_modules` it sits in (codex's launcher runs a binary from a sibling package), else
 * the folder of the real executable.
 */
export function installationRoots(binary: string, execPath: string): string[] {
  const roots = new Set<string>();
  const target = real(binary);
  const parts = target.split(path.sep);
  const nm = parts.lastIndexOf('node_modules');
  roots.add(nm > 0 ? parts.slice(0, nm + 1).join(path.sep) : path.dirname(target));
  // A .js CLI runs with this process's Node (or Electron as Node).
  if (/\.[cm]?js$/i.test(binary)) roots.add(path.dirname(real(execPath)));
  return [...roots];
}
