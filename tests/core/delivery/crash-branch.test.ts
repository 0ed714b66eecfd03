import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliverRequest } from '../../../main/core/delivery/deliver';
import { GitDelivery } from '../../../main/core/delivery/git-delivery';
import type { ProcessPort } from '../../../main/core/delivery/git-process';
import { LEFT_BRANCH_MS } from '../../../main/core/delivery/worktrees';
import { testLogging } from '../../helpers/test-logger';
import { gitWorld, type GitWorld } from './git-fixture';

let world: GitWorld;
beforeEach(() => {
  world = gitWorld();
});
afterEach(() => world.cleanup());

const request: DeliverRequest = { taskId: 'mem-crash', title: 'Crash', verdict: 'pass', deliveredBy: 'lane', raisePr: false, maxPushMiB: 100 };

/** The real port, except that the first git call `when` picks never returns: the process was killed there. */
function killedAt(when: (args: readonly string[]) => boolean): { port: ProcessPort; reached: Promise<void> } {
  let reach!: () => void;
  let hit = false;
  const reached = new Promise<void>((r) => (reach = r));
  const port: ProcessPort = {
    run(bin, args, req) {
      if (hit || bin !== 'git' || !when(args)) return world.port.run(bin, args, req);
      hit = true;
      reach();
      return new Promise(() => undefined);
    },
  };
  return { port, reached };
}

const taskBranches = (cwd: string, pattern: string) =>
  world
    .git(cwd, 'for-each-ref', '--format=%(refname:short)', pattern)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** Claims the task, lets the turn write `file`, delivers through `port`; resolves once `reached` (the kill). */
async function killedDelivery(kill: (args: readonly string[]) => boolean, file: string) {
  const { port, reached } = killedAt(kill);
  const first = world.delivery(port);
  const tree = await first.start(world.root, request.taskId);
  writeFileSync(path.join(tree.path, file), 'first attempt\n');
  void first.finish(tree, request);
  await reached;
  return tree;
}

/** The next start: the sweep, the task re-offered and claimed again, delivered to its end. */
async function rerun() {
  const next = world.delivery();
  await next.sweep();
  const tree = await next.start(world.root, request.taskId);
  writeFileSync(path.join(tree.path, 'second.txt'), 'second attempt\n');
  const record = await next.finish(tree, request);
  return { tree, record, next };
}

describe('git delivery after a kill mid-delivery: one branch per task, in origin and locally', () => {
  it('killed at the push: the re-run reuses task/<slug>, pushes it once; no local-only task/ branch stays', async () => {
    const killed = await killedDelivery((args) => args.includes('push'), 'first.txt');
    expect(killed.branch).toBe('task/mem-crash');
    const { tree, record } = await rerun();
    expect(tree.branch).toBe('task/mem-crash');
    expect(record).toMatchObject({ branch: 'task/mem-crash', pushed: true });
    expect(taskBranches(world.origin, 'refs/heads/task/')).toEqual(['task/mem-crash']);
    expect(taskBranches(world.root, 'refs/heads/task/')).toEqual(['task/mem-crash']);
    // The branch carries the re-run's one commit on the base, not the killed run's.
    const files = world.git(world.origin, 'show', '--name-only', '--format=', 'task/mem-crash').trim();
    expect(files).toBe('second.txt');
    expect(world.git(world.origin, 'rev-parse', 'task/mem-crash^').trim()).toBe(tree.base.commit);
  });

  it('killed after the push (removing the worktree): the re-run moves the same origin branch instead of adding task/<slug>-2', async () => {
    await killedDelivery((args) => args.includes('worktree') && args.includes('remove'), 'first.txt');
    expect(taskBranches(world.origin, 'refs/heads/task/')).toEqual(['task/mem-crash']);
    const { record } = await rerun();
    expect(record).toMatchObject({ branch: 'task/mem-crash', pushed: true });
    expect(record.note).toMatch(/^delivered 1 path\(s\) to task\/mem-crash @ /);
    expect(taskBranches(world.origin, 'refs/heads/task/')).toEqual(['task/mem-crash']);
    expect(world.git(world.origin, 'show', '--name-only', '--format=', 'task/mem-crash').trim()).toBe('second.txt');
  });

  it('a crashed run’s branch its task never takes again (finished elsewhere): swept after LEFT_BRANCH_MS when local-only, kept when origin has it', async () => {
    await killedDelivery((args) => args.includes('push'), 'first.txt');
    const later = (ms: number) => new GitDelivery({ stateDir: world.stateDir, log: testLogging().log, git: world.port, now: () => new Date(Date.now() + ms) });
    await later(0).sweep();
    // Another task's delivery and a sweep within the wait leave it for the task's return.
    const d = later(0);
    const other = await d.start(world.root, 'mem-other');
    writeFileSync(path.join(other.path, 'x.txt'), 'x\n');
    await d.finish(other, { ...request, taskId: 'mem-other' });
    await later(LEFT_BRANCH_MS - 60_000).sweep();
    expect(taskBranches(world.root, 'refs/heads/task/')).toEqual(['task/mem-crash', 'task/mem-other']);
    await later(LEFT_BRANCH_MS + 60_000).sweep();
    expect(taskBranches(world.root, 'refs/heads/task/')).toEqual(['task/mem-other']);
    expect(readdirSync(path.join(world.stateDir, 'registry'))).toEqual([]);
  });

  it('a pushed branch a crash left stays after the wait (origin has the same commit); only its note goes', async () => {
    await killedDelivery((args) => args.includes('worktree') && args.includes('remove'), 'first.txt');
    await world.delivery().sweep();
    expect(readdirSync(path.join(world.stateDir, 'registry'))).toHaveLength(1);
    await new GitDelivery({
      stateDir: world.stateDir,
      log: testLogging().log,
      git: world.port,
      now: () => new Date(Date.now() + LEFT_BRANCH_MS + 60_000),
    }).sweep();
    expect(taskBranches(world.root, 'refs/heads/task/')).toEqual(['task/mem-crash']);
    expect(readdirSync(path.join(world.stateDir, 'registry'))).toEqual([]);
  });

  it('a real kill -9 of the delivering process at the push: the next start takes the same branch, origin gets one', { timeout: 60_000 }, async () => {
    // A git on the child's PATH that stops at the push (it marks that it got there) and is real git otherwise.
    const wrapper = path.join(world.dir, 'stop-at-push');
    mkdirSync(wrapper);
    const mark = path.join(world.dir, 'at-push');
    writeFileSync(
      path.join(wrapper, 'git'),
      `#!/bin/sh\nfor a in "$@"; do if [ "$a" = push ]; then : > "${mark}"; exec sleep 600; fi; done\nexec /usr/bin/git "$@"\n`,
    );
    chmodSync(path.join(wrapper, 'git'), 0o755);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./fixtures/deliver-child.ts', import.meta.url)), world.stateDir, world.root, request.taskId],
      { env: { ...world.env, PATH: `${wrapper}:${world.env.PATH}` }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Wait for the condition (the wrapper reached the push), or the child's end (a failure to report).
    await new Promise<void>((resolve, reject) => {
      const check = () =>
        existsSync(mark) ? resolve() : child.exitCode !== null ? reject(new Error(`the child ended first: ${stderr}`)) : setTimeout(check, 20);
      check();
    });
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
    expect(taskBranches(world.root, 'refs/heads/task/')).toEqual(['task/mem-crash']);
    expect(taskBranches(world.origin, 'refs/heads/task/')).toEqual([]);

    const { tree, record } = await rerun();
    expect(tree.branch).toBe('task/mem-crash');
    expect(record).toMatchObject({ branch: 'task/mem-crash', pushed: true });
    expect(taskBranches(world.origin, 'refs/heads/task/')).toEqual(['task/mem-crash']);
    expect(taskBranches(world.root, 'refs/heads/task/')).toEqual(['task/mem-crash']);
    expect(world.git(world.origin, 'show', '--name-only', '--format=', 'task/mem-crash').trim()).toBe('second.txt');
  });
});
