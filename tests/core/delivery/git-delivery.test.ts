import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliverRequest } from '../../../main/core/delivery/deliver';
import { completionSuffix } from '../../../main/core/delivery/delivery-texts';
import { DeliveryRecordSchema } from '../../../shared/delivery';
import { gitWorld, type GitWorld } from './git-fixture';

let world: GitWorld;
beforeEach(() => {
  world = gitWorld();
});
afterEach(() => world.cleanup());

const delivery = () => world.delivery();

const task = (over: Partial<DeliverRequest> = {}): DeliverRequest => ({
  taskId: 'mem-ABC123',
  title: 'Add the widget',
  verdict: 'pass',
  deliveredBy: 'lane-7',
  raisePr: false,
  maxPushMiB: 100,
  ...over,
});

/** What a turn does in its checkout: edit, add, delete. */
function work(dir: string, tag = 'x'): void {
  writeFileSync(path.join(dir, 'src', 'a.ts'), `export const a = '${tag}';\n`);
  writeFileSync(path.join(dir, 'src', `new-${tag}.ts`), 'export {};\n');
  rmSync(path.join(dir, 'src', 'old.ts'));
}

const worktreeList = () => world.git(world.root, 'worktree', 'list', '--porcelain');

describe('git delivery: a worktree per task, delivered to task/<slug>', () => {
  it('commits the turn’s changes with the seed’s message and trailer, pushes the branch, removes the worktree and leaves the operator’s checkout as it was', async () => {
    const d = delivery();
    const head = world.git(world.root, 'rev-parse', 'HEAD').trim();
    const tree = await d.start(world.root, 'mem-ABC123');
    expect(tree.branch).toBe('task/mem-abc123');
    // The base is the root's HEAD commit (the operator's own branch), and the UI can say which.
    expect(tree.base).toEqual({ commit: head, ref: 'feature' });
    // The operator's uncommitted changes did not follow the task; the committed feature work did.
    expect(world.git(tree.path, 'status', '--porcelain')).toBe('');
    expect(existsSync(path.join(tree.path, 'src', 'feature.ts'))).toBe(true);
    work(tree.path);

    const record = await d.finish(tree, task());
    expect(DeliveryRecordSchema.parse(record)).toEqual(record);
    const sha = world.git(world.origin, 'rev-parse', 'refs/heads/task/mem-abc123').trim();
    const short = world.git(world.root, 'rev-parse', '--short', sha).trim();
    expect(record).toEqual({
      branch: 'task/mem-abc123',
      base: { commit: head, ref: 'feature' },
      commit: sha,
      pushed: true,
      prUrl: null,
      note: `delivered 3 path(s) to task/mem-abc123 @ ${short}`,
      keptWorktree: null,
    });
    expect(world.git(world.origin, 'log', '-1', '--format=%B', sha).trim()).toBe(
      [
        'task(mem-ABC123): Add the widget [verdict:pass]',
        '',
        'Driven-executor delivery (FR-sechroom-496): work produced by the sandboxed codex turn, landed by the driver.',
        '',
        'Delivered-By: sechroom executor run (lane-7)',
      ].join('\n'),
    );
    expect(world.git(world.origin, 'rev-parse', `${sha}^`).trim()).toBe(head);
    expect(world.git(world.origin, 'diff', '--name-status', head, sha).trim().split('\n').sort()).toEqual(['A\tsrc/new-x.ts', 'D\tsrc/old.ts', 'M\tsrc/a.ts']);
    // The branch tracks origin (-u), the worktree and its note are gone.
    expect(world.git(world.root, 'config', 'branch.task/mem-abc123.remote').trim()).toBe('origin');
    expect(existsSync(tree.path)).toBe(false);
    expect(worktreeList()).not.toContain(tree.path);
    expect((await d.sweep()).removed).toEqual([]);
    expect(completionSuffix(record.note)).toBe(`\n\nDelivery: ${record.note}`);
    expect(world.rootFingerprint()).toBe(world.initialFingerprint);
  });

  it('delivers for every verdict (the verdict in the subject) and says so when the turn changed nothing, dropping its branch', async () => {
    const d = delivery();
    const idle = await d.start(world.root, 'mem-idle');
    const nothing = await d.finish(idle, task({ taskId: 'mem-idle', verdict: 'blocked' }));
    expect(nothing).toMatchObject({ branch: null, commit: null, pushed: false, note: 'no file changes produced by the turn — nothing to deliver' });
    expect(world.git(world.root, 'branch', '--list', 'task/*').trim()).toBe('');

    const soft = await d.start(world.root, 'mem-soft');
    work(soft.path);
    const record = await d.finish(soft, task({ taskId: 'mem-soft', verdict: 'soft-fail' }));
    expect(world.git(world.origin, 'log', '-1', '--format=%s', record.commit!).trim()).toBe('task(mem-soft): Add the widget [verdict:soft-fail]');
    expect(world.rootFingerprint()).toBe(world.initialFingerprint);
  });

  it('runs two tasks at once in two worktrees; a taken name gets the first free suffix', async () => {
    world.git(world.root, 'branch', 'task/mem-dup', 'main');
    const d = delivery();
    const [one, two, other] = await Promise.all([d.start(world.root, 'mem-dup'), d.start(world.root, 'mem-dup'), d.start(world.root, 'MEM::Other')]);
    expect([one.branch, two.branch, other.branch]).toEqual(['task/mem-dup-2', 'task/mem-dup-3', 'task/mem-other']);
    expect(new Set([one.path, two.path, other.path]).size).toBe(3);
    work(one.path, 'one');
    work(two.path, 'two');
    const [r1, r2] = await Promise.all([d.finish(one, task({ taskId: 'mem-dup' })), d.finish(two, task({ taskId: 'mem-dup', title: 'Second' }))]);
    expect([r1.pushed, r2.pushed]).toEqual([true, true]);
    expect(world.git(world.origin, 'show', 'task/mem-dup-2:src/a.ts')).toBe("export const a = 'one';\n");
    expect(world.git(world.origin, 'show', 'task/mem-dup-3:src/a.ts')).toBe("export const a = 'two';\n");
    await d.discard(other);
    expect(world.git(world.root, 'branch', '--list', 'task/mem-other').trim()).toBe('');
    expect(world.rootFingerprint()).toBe(world.initialFingerprint);
  });

  it('a refused push leaves the branch local-only, says so, and raises no PR', async () => {
    const hook = path.join(world.origin, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "task branches are closed today" >&2\nexit 1\n', { mode: 0o755 });
    const d = delivery();
    const tree = await d.start(world.root, 'mem-refused');
    work(tree.path);
    const record = await d.finish(tree, task({ taskId: 'mem-refused', raisePr: true }));
    const short = world.git(world.root, 'rev-parse', '--short', 'task/mem-refused').trim();
    expect(record.pushed).toBe(false);
    expect(record.note).toBe(`delivered 3 path(s) to task/mem-refused @ ${short}; push failed (remote: task branches are closed today) — branch is local-only`);
    expect(record.commit).toBe(world.git(world.root, 'rev-parse', 'task/mem-refused').trim());
    expect(() => world.git(world.origin, 'rev-parse', '--verify', 'refs/heads/task/mem-refused')).toThrow();
    expect(world.ghCalls()).toEqual([]);
    expect(world.rootFingerprint()).toBe(world.initialFingerprint);
  });

  it('a turn that rewrote its .git file and committed on its own is still delivered from the recorded repository, as one commit', async () => {
    const d = delivery();
    const tree = await d.start(world.root, 'mem-sly');
    work(tree.path);
    world.git(tree.path, 'add', '-A');
    world.git(tree.path, '-c', 'user.name=turn', 'commit', '--quiet', '-m', 'my own message');
    writeFileSync(path.join(tree.path, 'extra.txt'), 'after the commit\n');
    writeFileSync(path.join(tree.path, '.git'), `gitdir: ${path.join(world.dir, 'elsewhere')}\n`);
    const record = await d.finish(tree, task({ taskId: 'mem-sly' }));
    expect(record.pushed).toBe(true);
    expect(record.note).toMatch(/^delivered 4 path\(s\) to task\/mem-sly @ [0-9a-f]+$/);
    expect(world.git(world.origin, 'log', '--format=%s', `${record.base.commit}..task/mem-sly`).trim()).toBe('task(mem-sly): Add the widget [verdict:pass]');
    expect(world.rootFingerprint()).toBe(world.initialFingerprint);
  });

  it('runs nothing the turn wrote: no in-tree hook (husky’s core.hooksPath), nothing of a nested repository’s config', async () => {
    world.git(world.root, 'config', 'core.hooksPath', '.husky');
    const marker = path.join(world.dir, 'ran-outside-the-sandbox');
    const d = delivery();
    const tree = await d.start(world.root, 'mem-hooks');
    mkdirSync(path.join(tree.path, '.husky'));
    for (const hook of ['pre-commit', 'commit-msg', 'post-commit', 'pre-push']) {
      writeFileSync(path.join(tree.path, '.husky', hook), `#!/bin/sh\necho ${hook} >> '${marker}'\n`, { mode: 0o755 });
    }
    // Nested repositories (one registered as a submodule, one not) with a clean filter in their own config.
    for (const name of ['sub', 'nest']) {
      const sub = path.join(tree.path, name);
      mkdirSync(sub);
      world.git(sub, 'init', '--quiet');
      writeFileSync(path.join(sub, '.gitattributes'), '*.txt filter=evil\n');
      writeFileSync(path.join(sub, 'a.txt'), 'one\n');
      world.git(sub, 'add', '.');
      world.git(sub, 'commit', '--quiet', '-m', 'sub');
      world.git(sub, 'config', 'filter.evil.clean', `sh -c 'echo filter >> "${marker}"; cat'`);
      // Same size: only the content (through the filter) tells whether it changed.
      writeFileSync(path.join(sub, 'a.txt'), 'two\n');
    }
    world.git(tree.path, 'add', 'sub');
    writeFileSync(path.join(tree.path, 'sub', 'a.txt'), 'six\n');
    // (The turn's own git ran the filter; what counts is that delivery never does.)
    rmSync(marker, { force: true });
    const record = await d.finish(tree, task({ taskId: 'mem-hooks' }));
    expect(record.pushed).toBe(true);
    expect(existsSync(marker)).toBe(false);
    // The hooks are delivered as files; the nested repositories are not the turn's files to deliver.
    expect(world.git(world.origin, 'ls-tree', '-r', '--name-only', 'task/mem-hooks', '.husky', 'nest').trim().split('\n')).toEqual([
      '.husky/commit-msg',
      '.husky/post-commit',
      '.husky/pre-commit',
      '.husky/pre-push',
    ]);
    expect(world.rootFingerprint()).toBe(world.initialFingerprint);
  });
});
