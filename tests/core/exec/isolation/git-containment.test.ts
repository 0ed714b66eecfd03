import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, truncateSync, writeFileSync, appendFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TaskWorktree } from '../../../../main/core/delivery/worktree-registry';
import { commitMessage } from '../../../../main/core/delivery/delivery-texts';
import { commandWorks, isolateTurn, probeIsolation, type IsolationTools, type PreparedTurn, type TurnContext } from '../../../../main/core/exec/isolation';
import { gitWorktreeAccess, withGitWorktree } from '../../../../main/core/exec/isolation/git-worktree-access';
import { createCommandRunner } from '../../../../main/core/exec/process-runner';
import { gitWorld, type GitWorld } from '../../delivery/git-fixture';
import { missingCommands, suiteTitle } from '../../../helpers/environment';

/*
 * Attack probes for a task's git (a prompt-injected turn under the default isolation): the
 * root's objects and every ref but the task's own unchanged, the operator's filter driver
 * never run by delivery, no trailer the runner did not write, no oversized or malformed
 * push. Each probe also runs as a control without the sandbox (or with the old delivery
 * steps), where it must find what it looks for, so the test can fail.
 */
const linux = process.platform === 'linux';
const bwrap = linux ? await createCommandRunner().which('bwrap') : null;
const tools: IsolationTools | null = bwrap ? await probeIsolation({ platform: 'linux', which: async () => bwrap, works: commandWorks }) : null;
const reason = tools?.level !== 'bubblewrap' ? (tools?.note ?? 'bubblewrap is Linux only') : missingCommands(['git']).length ? 'git not installed' : null;

let world: GitWorld;
let tree: TaskWorktree;

/** Every ref of the root with its commit, and every object it holds (id, type, size), and the README blob's bytes. */
function fingerprint(): { refs: string; objects: string; readme: string } {
  const refs = world.git(world.root, 'for-each-ref', '--format=%(refname) %(objectname)');
  const listing = world.git(world.root, 'cat-file', '--batch-all-objects', '--batch-check');
  const readme = world.git(world.root, 'cat-file', '-p', 'main:README.md');
  return { refs, objects: createHash('sha256').update(listing).digest('hex'), readme };
}

/** The turn's script: in the sandbox (as a real turn runs) or, as the control, straight on the host. */
async function turn(script: string, sandboxed: boolean): Promise<string> {
  const env = { COMMON: tree.commonDir, README_BLOB: world.git(world.root, 'rev-parse', 'main:README.md').trim() };
  if (!sandboxed) {
    const run = spawnSync('/bin/sh', ['-c', script], { cwd: tree.path, env: { PATH: '/usr/bin:/bin', HOME: world.home, ...env }, encoding: 'utf8' });
    return `${run.stdout}${run.stderr}`;
  }
  const turnRoot = mkdtempSync(path.join(world.dir, 'turn-'));
  const sourceEnv = { PATH: '/usr/bin:/bin', HOME: world.home };
  const ctx: TurnContext = {
    runtime: 'codex',
    workRoot: world.dir,
    turnRoot,
    requestEnv: {},
    options: { tools: async () => tools!, extraEnvAllow: () => [], ownConfig: () => false, hidden: [world.stateDir], sourceEnv },
  };
  const prepared: PreparedTurn = { tools: tools!, home: { env: {}, signIn: [], writable: [], args: [] }, homeDir: world.home, ownConfig: false };
  const cmd = await isolateTurn(ctx, prepared, {
    command: '/bin/sh',
    args: ['-c', script],
    cwd: tree.path,
    binary: '/bin/sh',
    ownEnv: [env],
    knownSecrets: [],
    widen: (base) => withGitWorktree(base, gitWorktreeAccess(tree, { home: world.home, env: sourceEnv })),
  });
  // The turn's network (its egress proxy) is up while it runs, as the executor has it; these scripts use none.
  const proxy = await cmd.egress?.start();
  const run = spawnSync(cmd.command, cmd.args, { env: cmd.env, cwd: cmd.cwd, encoding: 'utf8' });
  await proxy?.close();
  return `${run.stdout}${run.stderr}`;
}

/** Forges the README's blob and moves another task's branch and main, by git and by hand. */
const FORGE = [
  'OBJ="$COMMON/objects/$(echo $README_BLOB | cut -c1-2)/$(echo $README_BLOB | cut -c3-)"',
  // A packed object has no loose file: write one, which git reads before the pack.
  'mkdir -p "$(dirname "$OBJ")" 2>/dev/null; rm -f "$OBJ" 2>/dev/null',
  'printf "blob 5\\0evil\\n" | perl -MCompress::Zlib -0777 -ne "print compress(\\$_)" > "$OBJ" 2>/dev/null && echo FORGED',
  'echo attacker > junk.txt; git hash-object -w junk.txt >/dev/null; git --git-dir="$COMMON" hash-object -w junk.txt >/dev/null 2>&1 && echo ROOT_OBJECT_WRITTEN',
  'git --git-dir="$COMMON" update-ref refs/heads/task/kept HEAD~0 2>/dev/null && echo KEPT_MOVED_BY_GIT',
  'echo $README_BLOB > "$COMMON/refs/heads/task/kept" 2>/dev/null && echo KEPT_MOVED_BY_HAND',
  'git --git-dir="$COMMON" update-ref refs/heads/main HEAD 2>/dev/null && echo MAIN_MOVED',
  'git commit -q -m turn --allow-empty && echo OWN_COMMIT',
  'echo DONE',
].join('\n');

const task = { taskId: 'mem-attack', title: 'Attack', verdict: 'pass' as const, deliveredBy: 'lane', raisePr: false, maxPushMiB: 100 };

describe.skipIf(reason)(suiteTitle('a task’s git under attack (bubblewrap)', reason), () => {
  beforeEach(async () => {
    world = gitWorld();
    world.git(world.root, 'branch', 'task/kept', 'main');
    tree = await world.delivery().start(world.root, task.taskId);
  });
  afterEach(() => world.cleanup());

  it('control: without the sandbox the forgeries land in the root (so the probe can fail)', async () => {
    const before = fingerprint();
    const out = await turn(FORGE, false);
    expect(out).toContain('DONE');
    const after = fingerprint();
    expect(after.refs).not.toBe(before.refs);
    expect(after.objects).not.toBe(before.objects);
    expect(after.readme).toBe('evil\n');
  });

  it('in the sandbox: the root’s objects and every ref are unchanged, the turn’s own git still commits', async () => {
    const before = fingerprint();
    const out = await turn(FORGE, true);
    expect(out).toContain('DONE');
    expect(out).toContain('OWN_COMMIT');
    for (const marker of ['FORGED', 'ROOT_OBJECT_WRITTEN', 'KEPT_MOVED_BY_GIT', 'KEPT_MOVED_BY_HAND', 'MAIN_MOVED']) expect(out).not.toContain(marker);
    expect(fingerprint()).toEqual(before);

    // Delivery adds its own commit's objects and moves only the task's branch.
    const record = await world.delivery().finish(tree, task);
    expect(record.pushed).toBe(true);
    const after = fingerprint();
    const own = [`refs/heads/${tree.branch} `, `refs/remotes/origin/${tree.branch} `];
    const otherRefs = (refs: string) => refs.split('\n').filter((l) => !own.some((o) => l.startsWith(o)));
    expect(otherRefs(after.refs)).toEqual(otherRefs(before.refs));
    expect(after.readme).toBe(before.readme);
    expect(world.git(world.origin, 'show', `${tree.branch}:junk.txt`)).toBe('attacker\n');
  });

  it('delivery never runs the operator’s filter driver or textconv that a turn’s .gitattributes names', async () => {
    const marker = path.join(world.dir, 'filter-ran');
    appendFileSync(
      path.join(world.home, '.gitconfig'),
      `[filter "opfilter"]\n\tclean = sh -c 'touch ${marker} && cat'\n\tsmudge = cat\n[diff "optext"]\n\ttextconv = sh -c 'touch ${marker} && cat'\n`,
    );
    writeFileSync(path.join(tree.path, '.gitattributes'), '* filter=opfilter diff=optext\n');
    writeFileSync(path.join(tree.path, 'data.txt'), 'data\n');
    // Control: the operator's own git in the worktree runs it.
    spawnSync('git', ['-C', tree.path, 'add', 'data.txt'], { env: { PATH: '/usr/bin:/bin', HOME: world.home } });
    expect(existsSync(marker)).toBe(true);
    spawnSync('rm', ['-f', marker]);

    const record = await world.delivery().finish(tree, task);
    expect(record.pushed).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect(world.git(world.origin, 'show', `${tree.branch}:data.txt`)).toBe('data\n');
  });

  it('a title cannot forge a trailer: only the runner’s Delivered-By is in the commit', async () => {
    const title = 'Fix it\n\nSigned-off-by: Mallory <m@evil.test>\nCo-authored-by: Mallory <m@evil.test>';
    // Every line a trailer reader (git's, a forge's Co-authored-by) could take for one.
    const trailers = (message: string) => message.split('\n').filter((line) => /^[A-Za-z][A-Za-z0-9-]*:\s/.test(line));
    // Control: the title as it came, in the message's place, gives such lines.
    expect(trailers(`task(x): ${title} [verdict:pass]\n\nDelivered-By: runner`)).toContain('Signed-off-by: Mallory <m@evil.test>');
    expect(trailers(commitMessage({ ...task, title }))).toEqual(['Delivered-By: sechroom executor run (lane)']);

    writeFileSync(path.join(tree.path, 'fix.txt'), 'fixed\n');
    const record = await world.delivery().finish(tree, { ...task, title });
    const message = world.git(world.origin, 'log', '-1', '--format=%B', record.commit!);
    expect(trailers(message)).toEqual(['Delivered-By: sechroom executor run (lane)']);
    expect(message.split('\n')[0]).toBe('task(mem-attack): Fix it Signed-off-by Mallory <m@evil.test> Co-authored-by Mallory <m@evil.test> [verdict:pass]');
  });

  it('a 256 MiB file is not pushed: the delivery fails, the root and the origin get nothing', async () => {
    const before = fingerprint();
    writeFileSync(path.join(tree.path, 'big.bin'), '');
    truncateSync(path.join(tree.path, 'big.bin'), 256 * 1024 * 1024);
    const record = await world.delivery().finish(tree, task);
    expect(record.pushed).toBe(false);
    expect(record.note).toContain('big.bin is 256 MiB, over the 100 MiB push limit');
    expect(fingerprint()).toEqual(before);
    expect(world.git(world.origin, 'branch', '--list', tree.branch).trim()).toBe('');
  });

  it('a malformed object (a .gitmodules URL that is a git option) is refused by fsck before the root gets it', async () => {
    const before = fingerprint();
    writeFileSync(path.join(tree.path, '.gitmodules'), '[submodule "x"]\n\tpath = x\n\turl = --upload-pack=touch${IFS}/tmp/pwned\n');
    const record = await world.delivery().finish(tree, task);
    expect(record.pushed).toBe(false);
    expect(record.note).toContain('git fsck refused the new objects');
    expect(fingerprint()).toEqual(before);
    expect(world.git(world.origin, 'branch', '--list', tree.branch).trim()).toBe('');
  });
});
