import { copyFile, link, mkdir, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

/**
 * The git folders a task's turn gets instead of the root's. The root's own per-worktree
 * folder (`<common>/worktrees/<id>`) stays the host's; for the turn the checkout's `.git`
 * file names a private repository that borrows the root's objects read-only (alternates):
 *
 *   <private>/turn/            common folder (read-only to the turn: config, HEAD)
 *     objects/                 the turn's own objects (info/alternates: the root's objects)
 *     refs/heads/task/<slug>   the turn's only branch (its folder writable)
 *     worktree/                the checkout's git folder (HEAD, index, logs; commondir `..`)
 *   <private>/host/            made at delivery, never seen by the turn: its common folder,
 *     objects/                 the delivery commit's new objects, checked before they
 *                              reach the root
 *
 * So whatever the turn writes with git lands in folders only it uses: the root's objects,
 * its branches and every other task's branch are never writable, and delivery re-reads the
 * turn's files instead of trusting any object or index the turn made.
 */
export interface TaskGitLayout {
  /** `<private>/turn`: the turn's common folder. */
  turnCommon: string;
  /** `<private>/turn/worktree`: the checkout's git folder during the turn. */
  turnGitDir: string;
  /** `<private>/host`: delivery's common folder. */
  hostCommon: string;
  /** `<private>/host/worktrees/delivery`: delivery's git folder for the checkout (the root's index copied). */
  hostGitDir: string;
}

export function taskGitLayout(privateDir: string): TaskGitLayout {
  const turnCommon = path.join(privateDir, 'turn');
  const hostCommon = path.join(privateDir, 'host');
  return { turnCommon, turnGitDir: path.join(turnCommon, 'worktree'), hostCommon, hostGitDir: path.join(hostCommon, 'worktrees', 'delivery') };
}

export interface TaskGitInput {
  privateDir: string;
  /** The root's common folder (whose objects are borrowed). */
  commonDir: string;
  /** The root's per-worktree git folder (its index is copied for the turn). */
  gitDir: string;
  path: string;
  branch: string;
  baseCommit: string;
  /** `sha1` or `sha256`, as the root says. */
  objectFormat: string;
}

/** A repository config that names no program: nothing in it runs anything. */
function minimalConfig(objectFormat: string): string {
  const v1 = objectFormat !== 'sha1';
  return [
    '[core]',
    `\trepositoryformatversion = ${v1 ? 1 : 0}`,
    '\tbare = false',
    '\tlogallrefupdates = true',
    '[gc]',
    '\tauto = 0',
    ...(v1 ? ['[extensions]', `\tobjectformat = ${objectFormat}`] : []),
    '',
  ].join('\n');
}

/** A common folder with one branch at `commit` and the root's objects as alternates. */
async function commonFolder(dir: string, input: TaskGitInput): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  const refDir = path.join(dir, 'refs', 'heads', path.dirname(input.branch));
  await mkdir(refDir, { recursive: true, mode: 0o700 });
  await mkdir(path.join(dir, 'logs', 'refs', 'heads', path.dirname(input.branch)), { recursive: true });
  await mkdir(path.join(dir, 'refs', 'tags'), { recursive: true });
  await mkdir(path.join(dir, 'objects', 'info'), { recursive: true });
  await writeFile(path.join(dir, 'objects', 'info', 'alternates'), `${path.join(input.commonDir, 'objects')}\n`);
  await writeFile(path.join(dir, 'config'), minimalConfig(input.objectFormat));
  await writeFile(path.join(dir, 'HEAD'), `ref: refs/heads/${input.branch}\n`);
  await writeFile(path.join(refDir, path.basename(input.branch)), `${input.baseCommit}\n`);
  // A shallow root's history ends where its `shallow` file says; without it, log fails.
  await copyFile(path.join(input.commonDir, 'shallow'), path.join(dir, 'shallow')).catch(() => undefined);
}

/** A linked worktree's git folder in `common`, on the branch, with the root's index for the checkout. */
async function worktreeFolder(dir: string, common: string, input: TaskGitInput): Promise<void> {
  await mkdir(path.join(dir, 'logs'), { recursive: true });
  await writeFile(path.join(dir, 'HEAD'), `ref: refs/heads/${input.branch}\n`);
  await writeFile(path.join(dir, 'commondir'), `${path.relative(dir, common)}\n`);
  await writeFile(path.join(dir, 'gitdir'), `${path.join(input.path, '.git')}\n`);
  await writeFile(path.join(dir, 'config.worktree'), '');
  await copyFile(path.join(input.gitDir, 'index'), path.join(dir, 'index')).catch(() => undefined);
}

/** Makes the turn's private repository and points the checkout at it. */
export async function prepareTurnGit(input: TaskGitInput): Promise<TaskGitLayout> {
  const layout = taskGitLayout(input.privateDir);
  await mkdir(input.privateDir, { recursive: true, mode: 0o700 });
  await commonFolder(layout.turnCommon, input);
  await worktreeFolder(layout.turnGitDir, layout.turnCommon, input);
  await writeFile(path.join(input.path, '.git'), `gitdir: ${layout.turnGitDir}\n`);
  return layout;
}

/** The checkout is the root's worktree again (delivery, a kept tree, removal). */
export async function restoreCheckout(tree: { path: string; gitDir: string }): Promise<void> {
  await writeFile(path.join(tree.path, '.git'), `gitdir: ${tree.gitDir}\n`).catch(() => undefined);
}

/** Delivery's own common folder, fresh (nothing the turn wrote is in it). */
export async function prepareHostGit(input: TaskGitInput): Promise<TaskGitLayout> {
  const layout = taskGitLayout(input.privateDir);
  await commonFolder(layout.hostCommon, input);
  await worktreeFolder(layout.hostGitDir, layout.hostCommon, input);
  return layout;
}

const HEX2 = /^[0-9a-f]{2}$/;
const HEX_REST = /^[0-9a-f]{38}([0-9a-f]{24})?$/;

/** The loose objects in an objects folder (delivery writes no packs: gc is off). */
export async function looseObjects(objectsDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const dir of await readdir(objectsDir).catch(() => [] as string[])) {
    if (!HEX2.test(dir)) continue;
    for (const file of await readdir(path.join(objectsDir, dir))) if (HEX_REST.test(file)) out.push(`${dir}${file}`);
  }
  return out.sort();
}

/**
 * Copies checked objects into the root's objects folder the way git adds a loose object: a
 * temporary file, then a hard link to its name (an object already there is kept).
 */
export async function copyObjects(fromDir: string, toDir: string, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    const dir = path.join(toDir, id.slice(0, 2));
    const target = path.join(dir, id.slice(2));
    await mkdir(dir, { recursive: true });
    const tmp = path.join(dir, `tmp_obj_${randomBytes(6).toString('hex')}`);
    await copyFile(path.join(fromDir, id.slice(0, 2), id.slice(2)), tmp);
    try {
      await link(tmp, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await unlink(tmp);
    }
  }
}
