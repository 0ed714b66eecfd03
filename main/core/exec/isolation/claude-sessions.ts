import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { errorText } from '../../../../shared/errors';
import type { Logger } from '../../base/ports';
import type { PreparedTurn } from './turn-isolation';

/**
 * The one thing of a claude turn that outlives it: the session transcript `--resume <id>`
 * needs. Every turn gets a fresh, empty CLAUDE_CONFIG_DIR (runtime-homes.ts), so nothing a
 * turn plants there (hooks in settings.json, a CLAUDE.md, MCP servers, rules, history of
 * other sessions) reaches the next turn. claude files a session as
 * `<config>/projects/<folder named after the cwd>/<id>.jsonl` (claude 2.1.197); after the
 * turn the host copies that one file into a store of its own, and a turn that resumes gets
 * only that file back, at the same place, in its new config dir.
 *
 * The copy reads what a turn wrote, so it trusts nothing there: no symbolic links (a link
 * to an operator file would smuggle that file into the next turn), regular files only, and
 * a size bound.
 */
export const CLAUDE_SESSION_STORE = 'claude-sessions';
/** The shared config folder of earlier versions: removed at start, its state is not carried over. */
export const LEGACY_CLAUDE_CONFIG = 'claude-config';
const TRANSCRIPT_MAX_BYTES = 64 * 1024 * 1024;
/** The store keeps the most recent transcripts; the resume cache forgets older conversations too. */
const STORE_MAX_SESSIONS = 200;
const PROJECTS = 'projects';
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
const FOLDER = /^[A-Za-z0-9-]{1,260}$/;

function validId(sessionId: string): boolean {
  return SESSION_ID.test(sessionId) && !sessionId.includes('..');
}

/** A real folder (not a link) or null. */
async function realFolder(dir: string): Promise<boolean> {
  try {
    return (await lstat(dir)).isDirectory();
  } catch {
    return false;
  }
}

/** The `projects/<folder>` that holds `<id>.jsonl` as a regular file under `root`, or null. */
async function findTranscript(root: string, sessionId: string): Promise<string | null> {
  if (!(await realFolder(root))) return null;
  let folders: string[];
  try {
    folders = await readdir(root);
  } catch {
    return null;
  }
  for (const folder of folders.sort()) {
    if (!FOLDER.test(folder) || !(await realFolder(path.join(root, folder)))) continue;
    try {
      if ((await lstat(path.join(root, folder, `${sessionId}.jsonl`))).isFile()) return folder;
    } catch {
      // not in this folder
    }
  }
  return null;
}

/** Copies a regular file without following a link at `from`; the target appears whole (rename) or not at all. */
async function copyPlainFile(from: string, to: string): Promise<boolean> {
  const source = await open(from, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => null);
  if (!source) return false;
  const partial = `${to}.partial-${process.pid}`;
  try {
    const info = await source.stat();
    if (!info.isFile() || info.size > TRANSCRIPT_MAX_BYTES) return false;
    const target = await open(partial, 'w', 0o600);
    try {
      await target.writeFile(await source.readFile());
    } finally {
      await target.close();
    }
    await rename(partial, to);
    return true;
  } catch {
    await unlink(partial).catch(() => undefined);
    return false;
  } finally {
    await source.close();
  }
}

/** Puts the kept transcript of `sessionId` into a fresh config dir; false when the store has none. */
export async function restoreClaudeSession(workRoot: string, configDir: string, sessionId: string): Promise<boolean> {
  if (!validId(sessionId)) return false;
  const store = path.join(workRoot, CLAUDE_SESSION_STORE);
  const folder = await findTranscript(store, sessionId);
  if (!folder) return false;
  const target = path.join(configDir, PROJECTS, folder);
  await mkdir(target, { recursive: true, mode: 0o700 });
  return copyPlainFile(path.join(store, folder, `${sessionId}.jsonl`), path.join(target, `${sessionId}.jsonl`));
}

/** After a turn: keeps the transcript of `sessionId` from the turn's config dir (and only it). */
export async function keepClaudeSession(workRoot: string, configDir: string, sessionId: string): Promise<boolean> {
  if (!validId(sessionId)) return false;
  const projects = path.join(configDir, PROJECTS);
  const folder = await findTranscript(projects, sessionId);
  if (!folder) return false;
  const store = path.join(workRoot, CLAUDE_SESSION_STORE);
  await mkdir(path.join(store, folder), { recursive: true, mode: 0o700 });
  const kept = await copyPlainFile(path.join(projects, folder, `${sessionId}.jsonl`), path.join(store, folder, `${sessionId}.jsonl`));
  if (kept) await pruneStore(store);
  return kept;
}

/** Removes the oldest transcripts beyond the store's bound. */
async function pruneStore(store: string): Promise<void> {
  const files: { file: string; mtime: number }[] = [];
  for (const folder of await readdir(store)) {
    const dir = path.join(store, folder);
    if (!(await realFolder(dir))) continue;
    for (const name of await readdir(dir)) {
      const file = path.join(dir, name);
      const info = await stat(file).catch(() => null);
      if (info?.isFile()) files.push({ file, mtime: info.mtimeMs });
    }
  }
  files.sort((a, b) => b.mtime - a.mtime);
  for (const old of files.slice(STORE_MAX_SESSIONS)) await rm(old.file, { force: true });
}

/** At start: the shared config folder earlier versions kept between turns goes, with whatever was planted in it. */
export async function removeLegacyClaudeConfig(workRoot: string): Promise<boolean> {
  const dir = path.join(workRoot, LEGACY_CLAUDE_CONFIG);
  if (!(await lstat(dir).catch(() => null))) return false;
  await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  return true;
}

/** After a claude turn with a session: keeps its transcript for the next turn's `--resume`. */
export async function keepSession(workRoot: string, prepared: PreparedTurn, sessionId: string | undefined, log: Logger): Promise<void> {
  const configDir = prepared.home.env.CLAUDE_CONFIG_DIR;
  if (!sessionId || !configDir || prepared.ownConfig) return;
  try {
    if (!(await keepClaudeSession(workRoot, configDir, sessionId))) log.warn('claude left no transcript of its session; the next turn cannot resume it');
  } catch (error) {
    log.warn('could not keep the session transcript (the next turn starts a new session)', { error: errorText(error) });
  }
}
