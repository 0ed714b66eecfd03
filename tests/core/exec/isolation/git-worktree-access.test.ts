import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskWorktree } from '../../../../main/core/delivery/worktree-registry';
import {
  commandWorks,
  isolateTurn,
  probeIsolation,
  type IsolationSpec,
  type IsolationTools,
  type PreparedTurn,
  type TurnContext,
} from '../../../../main/core/exec/isolation';
import { gitCredentialPaths, gitWorktreeAccess, withGitWorktree } from '../../../../main/core/exec/isolation/git-worktree-access';
import { createCommandRunner } from '../../../../main/core/exec/process-runner';
import { gitWorld, type GitWorld } from '../../delivery/git-fixture';
import { missingCommands, suiteTitle } from '../../../helpers/environment';

const SSH_AGENT = 'ssh-agent';
const SSH_ADD = 'ssh-add';
const linux = process.platform === 'linux';
const bwrap = linux ? await createCommandRunner().which('bwrap') : null;
const tools: IsolationTools | null = bwrap ? await probeIsolation({ platform: 'linux', which: async () => bwrap, works: commandWorks }) : null;

function unavailable(): string | null {
  if (tools?.level !== 'bubblewrap') return tools?.note ?? 'bubblewrap is Linux only';
  const missing = missingCommands(['git', SSH_AGENT, SSH_ADD]);
  return missing.length > 0 ? `${missing.join(', ')} not installed` : null;
}
const reason = unavailable();

let world: GitWorld;
let tree: TaskWorktree;
let agentPid = 0;
let agentEnv: Record<string, string>;

/**
 * Runs `script` as a turn's runtime through isolateTurn, the worktree's access added by its
 * `widen` hook. The operator's settings let GH_* and GIT_ASKPASS through, and the launch's
 * own layer carries the agent socket: the worktree access must take them out all the same.
 */
async function inSandbox(script: string): Promise<{ out: string; spec: IsolationSpec }> {
  const turnRoot = mkdtempSync(path.join(world.dir, 'turn-'));
  const sourceEnv = { PATH: '/usr/bin:/bin', HOME: world.home, GIT_ASKPASS: '/usr/bin/ssh-askpass', GH_TOKEN: 'gho_never' };
  const ctx: TurnContext = {
    runtime: 'codex',
    workRoot: world.dir,
    turnRoot,
    requestEnv: {},
    options: { tools: async () => tools!, extraEnvAllow: () => ['GH_*', 'GIT_ASKPASS'], ownConfig: () => false, hidden: [world.stateDir], sourceEnv },
  };
  const prepared: PreparedTurn = { tools: tools!, home: { env: {}, signIn: [], writable: [], args: [] }, homeDir: world.home, ownConfig: false };
  let spec: IsolationSpec | null = null;
  const cmd = await isolateTurn(ctx, prepared, {
    command: '/bin/sh',
    args: ['-c', script],
    cwd: tree.path,
    binary: '/bin/sh',
    ownEnv: [{ COMMON: tree.commonDir, ...agentEnv }],
    knownSecrets: [],
    widen: (base) => (spec = withGitWorktree(base, gitWorktreeAccess(tree, { home: world.home, env: { ...sourceEnv, ...agentEnv } }))),
  });
  // The turn's network (its egress proxy) is up while it runs, as the executor has it; these scripts use none.
  const proxy = await cmd.egress?.start();
  const run = spawnSync(cmd.command, cmd.args, { env: cmd.env, cwd: cmd.cwd, encoding: 'utf8' });
  await proxy?.close();
  return { out: `${run.stdout}${run.stderr}`, spec: spec! };
}

describe.skipIf(reason)(suiteTitle('git worktree access in the turn’s sandbox (bubblewrap)', reason), () => {
  beforeAll(async () => {
    world = gitWorld();
    writeFileSync(path.join(world.home, '.git-credentials'), 'https://op:ghp_secret@github.com\n', { mode: 0o600 });
    const sock = path.join(world.dir, 'agent.sock');
    const agent = spawnSync(SSH_AGENT, ['-a', sock, '-s'], { encoding: 'utf8' });
    agentPid = Number(/SSH_AGENT_PID=(\d+)/.exec(agent.stdout)?.[1] ?? 0);
    agentEnv = { SSH_AUTH_SOCK: sock };
    tree = await world.delivery().start(world.root, 'mem-sandbox');
  });
  afterAll(() => {
    if (agentPid > 0) process.kill(agentPid);
    world?.cleanup();
  });

  it('outside the sandbox the agent answers and the credentials file reads (so the checks below can fail)', () => {
    expect(spawnSync(SSH_ADD, ['-l'], { env: { PATH: '/usr/bin:/bin', ...agentEnv } }).status).toBe(1);
    expect(spawnSync('cat', [path.join(world.home, '.git-credentials')]).status).toBe(0);
  });

  it('git status and git commit work inside the worktree', async () => {
    const { out } = await inSandbox(
      'git status --porcelain >/dev/null && echo STATUS_OK; echo hi > turn.txt && git add turn.txt && git commit -q -m turn && echo COMMIT_OK',
    );
    expect(out).toContain('STATUS_OK');
    expect(out).toContain('COMMIT_OK');
    // The turn's commit is in its private repository only: the root's branch is where the task started.
    expect(world.git(world.root, 'rev-parse', tree.branch).trim()).toBe(tree.base.commit);
  });

  it('no ssh agent, no credential file, no token, no push', async () => {
    const { out, spec } = await inSandbox(
      [
        'ssh-add -l >/dev/null 2>&1; echo "SSH_ADD=$?"',
        'echo "SOCK=${SSH_AUTH_SOCK:-none} ASKPASS=${GIT_ASKPASS:-none} GH=${GH_TOKEN:-none}"',
        'cat "$HOME/.git-credentials" 2>/dev/null && echo CREDS_READ',
        'git push -q origin HEAD 2>/dev/null && echo PUSHED',
      ].join('\n'),
    );
    expect(out).toContain('SSH_ADD=2');
    expect(out).toContain('SOCK=none ASKPASS=none GH=none');
    expect(out).not.toContain('CREDS_READ');
    expect(out).not.toContain('PUSHED');
    for (const p of gitCredentialPaths(world.home, agentEnv)) expect(spec.hidden).toContain(p);
  });

  it('the root’s config, hooks and the operator’s branches, the worktree’s .git file and commondir are read-only', async () => {
    const mainBefore = world.git(world.root, 'rev-parse', 'refs/heads/main').trim();
    const { out } = await inSandbox(
      [
        'git config --local core.sshCommand evil 2>/dev/null && echo CONFIG_WRITTEN',
        'echo x > "$COMMON/hooks/pre-push" 2>/dev/null && echo HOOK_WRITTEN',
        'git update-ref refs/heads/main HEAD 2>/dev/null && echo MAIN_MOVED',
        'echo "gitdir: /elsewhere" > .git 2>/dev/null && echo DOTGIT_WRITTEN',
        'echo /elsewhere > "$(git rev-parse --absolute-git-dir)/commondir" 2>/dev/null && echo COMMONDIR_WRITTEN',
        'echo "[core] fsmonitor = evil" > "$(git rev-parse --absolute-git-dir)/config.worktree" 2>/dev/null && echo WTCONFIG_WRITTEN',
        'echo DONE',
      ].join('\n'),
    );
    expect(out).toContain('DONE');
    for (const marker of ['CONFIG_WRITTEN', 'HOOK_WRITTEN', 'MAIN_MOVED', 'DOTGIT_WRITTEN', 'COMMONDIR_WRITTEN', 'WTCONFIG_WRITTEN'])
      expect(out).not.toContain(marker);
    expect(world.git(world.root, 'rev-parse', 'refs/heads/main').trim()).toBe(mainBefore);
  });
});
