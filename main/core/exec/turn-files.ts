import { chmod, mkdir, mkdtemp, open, readdir, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * The files of a turn under the executor's private `workRoot`:
 *
 *   workRoot/                   0700
 *     turn-<unit>-<random>/     0700  one per turn, removed when the turn ends, however it ends
 *       mcp-config.json         0600  the MCP server URL and the unit's bearer (claude only)
 *       cwd/                    0700  the runtime's working directory (unless below)
 *     claude-cwd/               0700  the working directory of claude turn executions
 *
 * claude files a session under the directory it ran in and `--resume <id>` finds it only
 * from that same directory, so resumable claude turns share one stable, empty directory
 * instead of a fresh one each (checked with claude 2.1.197: "No conversation found").
 * Everything named `turn-*` is a leftover after a crash and is swept at start.
 */
export const TURN_DIR_PREFIX = 'turn-';
export const MCP_CONFIG_FILE = 'mcp-config.json';
export const CLAUDE_SESSION_CWD = 'claude-cwd';

export interface TurnDir {
  /** The per-turn directory (removed at the end). */
  root: string;
  /** A fresh, empty working directory inside it. */
  cwd: string;
}

async function ensurePrivateDir(dir: string): Promise<void> {
  const created = await mkdir(dir, { recursive: true, mode: 0o700 });
  // Only tighten a directory we created: workRoot might be something the caller shares.
  if (created !== undefined) await chmod(dir, 0o700);
}

function safeLabel(unitId: string): string {
  return unitId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40);
}

export async function createTurnDir(workRoot: string, unitId: string): Promise<TurnDir> {
  await ensurePrivateDir(workRoot);
  const root = await mkdtemp(path.join(workRoot, `${TURN_DIR_PREFIX}${safeLabel(unitId)}-`));
  await chmod(root, 0o700); // mkdtemp uses 0700; say so explicitly, it is what keeps the token private
  const cwd = path.join(root, 'cwd');
  await mkdir(cwd, { mode: 0o700 });
  return { root, cwd };
}

/** The stable working directory of resumable claude turns (see above). */
export async function claudeSessionCwd(workRoot: string): Promise<string> {
  await ensurePrivateDir(workRoot);
  const dir = path.join(workRoot, CLAUDE_SESSION_CWD);
  await ensurePrivateDir(dir);
  return dir;
}

/** The claude `--mcp-config` document for one HTTP server with a bearer. */
export function mcpConfigDocument(serverName: string, serverUrl: string, token: string): string {
  const config = { mcpServers: { [serverName]: { type: 'http', url: serverUrl, headers: { Authorization: `Bearer ${token}` } } } };
  return `${JSON.stringify(config)}\n`;
}

/** Writes the config owner-only; 'wx' refuses to follow or reuse anything already there. */
export async function writeMcpConfig(dir: string, document: string): Promise<string> {
  const file = path.join(dir, MCP_CONFIG_FILE);
  const handle = await open(file, 'wx', 0o600);
  try {
    await handle.chmod(0o600); // the open mode went through the umask
    await handle.writeFile(document, 'utf8');
  } finally {
    await handle.close();
  }
  return file;
}

export async function removeTurnDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** Removes leftover turn directories (with their MCP configs); returns how many. */
export async function sweepStaleTurnDirs(workRoot: string, active: ReadonlySet<string>): Promise<number> {
  let names: string[];
  try {
    names = await readdir(workRoot);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let removed = 0;
  for (const name of names) {
    const dir = path.join(workRoot, name);
    if (!name.startsWith(TURN_DIR_PREFIX) || active.has(dir)) continue;
    await removeTurnDir(dir);
    removed++;
  }
  return removed;
}
