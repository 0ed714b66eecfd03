import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliverRequest } from '../../../main/core/delivery/deliver';
import { GitDelivery } from '../../../main/core/delivery/git-delivery';
import type { ProcessPort } from '../../../main/core/delivery/git-process';
import { testLogging } from '../../helpers/test-logger';
import { gitWorld, type GitWorld } from './git-fixture';

let world: GitWorld;
beforeEach(() => {
  world = gitWorld();
});
afterEach(() => world.cleanup());

const request: DeliverRequest = { taskId: 'mem-crash', title: 'Crash', verdict: 'pass', deliveredBy: 'lane', raisePr: false, maxPushMiB: 100 };

/** The real port, except that the call `when` picks never returns (the process died there) or fails. */
function portWith(when: (args: readonly string[]) => boolean, then: 'hang' | 'fail'): { port: ProcessPort; reached: Promise<void> } {
  let reach!: () => void;
  const reached = new Promise<void>((r) => (reach = r));
  const port: ProcessPort = {
    run(bin, args, req) {
      if (bin !== 'git' || !when(args)) return world.port.run(bin, args, req);
      reach();
      if (then === 'hang') return new Promise(() => undefined);
      return Promise.resolve({ ok: false, code: 128, stdout: '', stderr: 'fatal: unable to write new index file\n', missing: false });
    },
  };
  return { port, reached };
}

describe('git delivery: crashes and what the next start sweeps', () => {
  it('a crash mid-delivery (after the commit, at the push) leaves a worktree the next start removes; the operator’s own worktree and checkout stay', async () => {
    const operatorTree = path.join(world.dir, 'operator-wt');
    world.git(world.root, 'worktree', 'add', '--quiet', '-b', 'mine', operatorTree, 'main');
    writeFileSync(path.join(operatorTree, 'wip.txt'), 'operator work in progress\n');

    const { port, reached } = portWith((args) => args.includes('push'), 'hang');
    const first = world.delivery(port);
    const tree = await first.start(world.root, request.taskId);
    writeFileSync(path.join(tree.path, 'half.txt'), 'half done\n');
    void first.finish(tree, request);
    await reached;
    // The process "died" here: the commit is made, the worktree and its note are still there.
    const committed = world.git(world.root, 'rev-parse', tree.branch).trim();
    expect(committed).not.toBe(tree.base.commit);
    expect(existsSync(tree.path)).toBe(true);

    const logging = testLogging();
    const next = new GitDelivery({ stateDir: world.stateDir, log: logging.log, git: world.port });
    const report = await next.sweep();
    expect(report.removed.map((t) => t.path)).toEqual([tree.path]);
    expect(existsSync(tree.path)).toBe(false);
    const list = world.git(world.root, 'worktree', 'list', '--porcelain');
    expect(list).not.toContain(tree.path);
    expect(list).toContain(operatorTree);
    expect(existsSync(path.join(operatorTree, 'wip.txt'))).toBe(true);
    // The commit it made stays on its branch (nothing is lost); the note says what was swept.
    expect(world.git(world.root, 'rev-parse', tree.branch).trim()).toBe(committed);
    expect(logging.entries.map((e) => e.msg)).toContain(`task mem-crash: worktree ${tree.path} (task/mem-crash) left by a crash: removed`);
    expect(await next.sweep()).toEqual({ removed: [], kept: [], unreadable: [] });
    expect(world.rootFingerprint()).toBe(world.initialFingerprint);
  });

  it('a crash before the turn changed anything: the worktree and its empty branch both go', async () => {
    const first = world.delivery();
    const tree = await first.start(world.root, request.taskId);
    const report = await world.delivery().sweep();
    expect(report.removed).toHaveLength(1);
    expect(world.git(world.root, 'branch', '--list', tree.branch).trim()).toBe('');
    expect(world.rootFingerprint()).toBe(world.initialFingerprint);
  });

  it('a commit that fails keeps the worktree for the operator, says where, and the sweep leaves it', async () => {
    const { port } = portWith((args) => args.includes('commit'), 'fail');
    const d = world.delivery(port);
    const tree = await d.start(world.root, request.taskId);
    writeFileSync(path.join(tree.path, 'precious.txt'), 'work\n');
    const record = await d.finish(tree, request);
    expect(record).toMatchObject({ branch: null, commit: null, pushed: false, keptWorktree: tree.path });
    expect(record.note).toBe(`delivery FAILED — git commit failed: fatal: unable to write new index file (changes remain in ${tree.path})`);
    expect(existsSync(path.join(tree.path, 'precious.txt'))).toBe(true);
    const report = await d.sweep();
    expect(report.kept.map((t) => t.path)).toEqual([tree.path]);
    expect(existsSync(path.join(tree.path, 'precious.txt'))).toBe(true);
    // Once the operator has taken their work and removed it, git and the notes forget it.
    rmSync(tree.path, { recursive: true });
    expect(await d.sweep()).toEqual({ removed: [], kept: [], unreadable: [] });
    expect(world.git(world.root, 'worktree', 'list', '--porcelain')).not.toContain(tree.path);
  });

  it('never sweeps what its notes do not name: folders of its own without a note, or a note naming another place', async () => {
    const stray = path.join(world.stateDir, 'trees', 'stray');
    mkdirSync(stray, { recursive: true });
    mkdirSync(path.join(world.stateDir, 'registry'), { recursive: true });
    writeFileSync(path.join(world.stateDir, 'registry', 'broken.json'), '{not json');
    const operatorTree = path.join(world.dir, 'operator-wt');
    world.git(world.root, 'worktree', 'add', '--quiet', '-b', 'mine', operatorTree, 'main');
    const head = world.git(world.root, 'rev-parse', 'HEAD').trim();
    const foreign = {
      id: 'operator-wt',
      taskId: 't',
      root: world.root,
      commonDir: path.join(world.root, '.git'),
      gitDir: path.join(world.root, '.git', 'worktrees', 'operator-wt'),
    };
    writeFileSync(
      path.join(world.stateDir, 'registry', 'operator-wt.json'),
      JSON.stringify({ ...foreign, path: operatorTree, branch: 'mine', base: { commit: head, ref: 'feature' }, createdAt: '', state: 'active' }),
    );
    const d = world.delivery();
    const report = await d.sweep();
    expect(report).toEqual({ removed: [], kept: [], unreadable: ['broken.json'] });
    expect(readdirSync(path.join(world.stateDir, 'trees'))).toEqual(['stray']);
    expect(existsSync(operatorTree)).toBe(true);
    expect(world.git(world.root, 'worktree', 'list', '--porcelain')).toContain(operatorTree);
  });

  it('says why a root cannot start a task, before the claim and at the start', async () => {
    const d = world.delivery();
    expect(await d.checkRoot(world.root)).toEqual({ ok: true });
    const plain = path.join(world.dir, 'plain');
    mkdirSync(plain);
    expect(await d.checkRoot(plain)).toMatchObject({ ok: false, reason: expect.stringMatching(/plain is not a git checkout: fatal: not a git repository/) });
    const empty = path.join(world.dir, 'empty');
    world.git(world.dir, 'init', '--quiet', empty);
    expect(await d.checkRoot(empty)).toEqual({ ok: false, reason: `${empty} has no commit to start a task from` });
    await expect(d.start(empty, 'mem-1')).rejects.toThrow('has no commit to start a task from');
    expect(existsSync(path.join(world.stateDir, 'registry'))).toBe(false);
  });

  it('another process taking the free name at the last moment: the next free one', async () => {
    const port: ProcessPort = {
      run(bin, args, req) {
        const taking = bin === 'git' && args.includes('worktree') && args[args.indexOf('-b') + 1] === 'task/mem-race';
        if (taking) world.git(world.root, 'branch', 'task/mem-race', 'HEAD');
        return world.port.run(bin, args, req);
      },
    };
    const tree = await world.delivery(port).start(world.root, 'mem-race');
    expect(tree.branch).toBe('task/mem-race-2');
    // The other process's branch is left as it was.
    expect(world.git(world.root, 'rev-parse', 'task/mem-race').trim()).toBe(tree.base.commit);
    expect(world.git(world.root, 'worktree', 'list', '--porcelain').match(/worktree /g)).toHaveLength(2);
  });
});
