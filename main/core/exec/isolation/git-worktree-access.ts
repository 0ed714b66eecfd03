import { existsSync } from 'node:fs';
import path from 'node:path';
import { taskGitLayout } from './task-git';
import type { IsolationSpec } from './spec';

/**
 * What a turn that works in a task's git worktree (main/core/delivery) may reach, added to
 * its IsolationSpec. Git must work inside the worktree (status, add, commit), so the
 * sandbox gets the worktree and the task's private repository (delivery/task-git.ts),
 * never the root's .git: a turn must not be able to change the operator's objects or
 * branches, another task's branch, or anything through which it could make the
 * unsandboxed delivery step (which holds the credentials) run its code. Read-only over
 * read-write works because bubblewrap binds deeper paths later.
 *
 * Read-write:
 * - the worktree, and its git folder for the turn (HEAD, index, logs);
 * - the private repository's objects (the turn's own) and its `task/` refs and logs.
 * Read-only:
 * - the root's objects (the private repository borrows them as alternates);
 * - the rest of the private repository (its config, HEAD);
 * - the worktree's `.git` file and its git folder's `commondir`, `gitdir` and
 *   `config.worktree` (they say where the repository and its config are).
 * Not there at all: the root's config, hooks, refs, packed-refs and index.
 * Kept out:
 * - variables that lead to credentials: the ssh agent socket, askpass programs, git's
 *   config and credential overrides, gh and GitHub tokens;
 * - the operator's ssh keys, ~/.git-credentials, git's and gh's config folders, ~/.netrc,
 *   gnupg (hidden: the Linux sandbox starts from nothing and never binds them; the macOS
 *   profile denies reading them).
 *
 * Delivery itself never trusts what the turn could have changed: it points the checkout
 * back at the root, commits the turn's files in a fresh repository of its own and checks
 * the new objects before any reaches the root.
 */
export interface GitWorktreeInput {
  /** The task's checkout. */
  path: string;
  /** The root's .git common folder. */
  commonDir: string;
  /** The task's private repository (null: a worktree from before they existed, which no turn may use). */
  privateGit: string | null;
  branch: string;
}

export interface GitWorktreeAccess {
  writable: string[];
  readOnly: string[];
  hidden: string[];
  /** Variables (names or `PREFIX_*`) the turn's environment must not have. */
  deniedEnv: string[];
  /** Set for git inside the sandbox: no prompts, an identity for commits the turn makes. */
  env: Record<string, string>;
}

export const DENIED_GIT_ENV: readonly string[] = [
  'SSH_AUTH_SOCK',
  'SSH_AGENT_PID',
  'SSH_ASKPASS',
  'GIT_ASKPASS',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_CONFIG_*',
  'GIT_DIR',
  'GIT_COMMON_DIR',
  'GIT_WORK_TREE',
  'GIT_CREDENTIAL_*',
  'GCM_*',
  'GH_*',
  'GITHUB_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
];

/** The operator's credential files and folders, under `home` (and `env`'s overrides of their places). */
export function gitCredentialPaths(home: string, env: Readonly<Record<string, string | undefined>>): string[] {
  const config = env.XDG_CONFIG_HOME || path.join(home, '.config');
  const paths = [
    path.join(home, '.ssh'),
    path.join(home, '.git-credentials'),
    path.join(home, '.gitconfig'),
    path.join(home, '.netrc'),
    path.join(home, '.gnupg'),
    path.join(config, 'git'),
    path.join(config, 'gh'),
  ];
  if (env.GH_CONFIG_DIR) paths.push(env.GH_CONFIG_DIR);
  if (env.SSH_AUTH_SOCK) paths.push(path.dirname(env.SSH_AUTH_SOCK));
  return [...new Set(paths)];
}

export function gitWorktreeAccess(tree: GitWorktreeInput, operator: { home: string; env: Readonly<Record<string, string | undefined>> }): GitWorktreeAccess {
  if (!tree.privateGit) throw new Error(`the worktree ${tree.path} has no private git folder; it cannot be given to a turn`);
  const { turnCommon, turnGitDir } = taskGitLayout(tree.privateGit);
  const branchDir = path.dirname(tree.branch);
  const present = (p: string) => existsSync(p);
  const writable = [
    tree.path,
    turnGitDir,
    path.join(turnCommon, 'objects'),
    path.join(turnCommon, 'refs', 'heads', branchDir),
    path.join(turnCommon, 'logs', 'refs', 'heads', branchDir),
  ].filter(present);
  const readOnly = [
    path.join(tree.commonDir, 'objects'),
    turnCommon,
    path.join(tree.path, '.git'),
    path.join(turnGitDir, 'commondir'),
    path.join(turnGitDir, 'gitdir'),
    path.join(turnGitDir, 'config.worktree'),
  ].filter(present);
  return {
    writable,
    readOnly,
    hidden: gitCredentialPaths(operator.home, operator.env),
    deniedEnv: [...DENIED_GIT_ENV],
    env: {
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: 'Runner Tray turn',
      GIT_AUTHOR_EMAIL: 'turn@runner-tray.invalid',
      GIT_COMMITTER_NAME: 'Runner Tray turn',
      GIT_COMMITTER_EMAIL: 'turn@runner-tray.invalid',
    },
  };
}

function denied(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));
}

/** The turn's spec with the worktree's access added and the credential variables taken out. */
export function withGitWorktree(spec: IsolationSpec, access: GitWorktreeAccess): IsolationSpec {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(spec.env)) if (!denied(name, access.deniedEnv)) env[name] = value;
  return {
    ...spec,
    env: { ...env, ...access.env },
    writable: [...new Set([...spec.writable, ...access.writable])],
    readOnly: [...new Set([...spec.readOnly, ...access.readOnly])],
    hidden: [...new Set([...spec.hidden, ...access.hidden])],
  };
}
