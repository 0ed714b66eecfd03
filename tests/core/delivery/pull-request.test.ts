import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliverRequest } from '../../../main/core/delivery/deliver';
import { gitWorld, type GitWorld } from './git-fixture';

let world: GitWorld;
beforeEach(() => {
  world = gitWorld();
});
afterEach(() => world.cleanup());

const request: DeliverRequest = { taskId: 'mem-pr1', title: 'Fix the flux', verdict: 'plan-invalid', deliveredBy: 'inst-key', raisePr: true, maxPushMiB: 100 };

async function deliverOne(over: Partial<DeliverRequest> = {}) {
  const d = world.delivery();
  const tree = await d.start(world.root, request.taskId);
  writeFileSync(path.join(tree.path, 'flux.txt'), 'fixed\n');
  const record = await d.finish(tree, { ...request, ...over });
  const short = world.git(world.root, 'rev-parse', '--short', tree.branch).trim();
  return { record, short };
}

describe('git delivery: the pull request through gh', () => {
  it('signed in: gh pr create with the seed’s title and body; its URL is the record’s and the note’s', async () => {
    world.setGh('signed-in');
    const { record, short } = await deliverOne();
    const calls = world.ghCalls();
    expect(calls.map((c) => c.argv)).toEqual([
      ['auth', 'status'],
      [
        'pr',
        'create',
        '--head',
        'task/mem-pr1',
        '--title',
        'task(mem-pr1): Fix the flux',
        '--body',
        `Driven-executor delivery for WLP task \`mem-pr1\` (verdict: plan-invalid, commit ${short}).\n\nWork produced by a sandboxed codex turn and landed by the unsandboxed driver (FR-sechroom-496). Review against the task's acceptance before merge.`,
      ],
    ]);
    expect(record.prUrl).toBe('https://github.com/acme/widgets/pull/42');
    expect(record.note).toBe(`delivered 1 path(s) to task/mem-pr1 @ ${short} — PR https://github.com/acme/widgets/pull/42`);
    // A clean environment, no prompts; gh finds the task's repository, not the runner's secrets.
    const env = calls[1]!.env;
    expect(env).toMatchObject({ GIT_TERMINAL_PROMPT: '0', GH_PROMPT_DISABLED: '1', GIT_ASKPASS: '', HOME: world.home });
    expect(env.GIT_WORK_TREE).toContain(path.join(world.stateDir, 'trees'));
    expect(env.RUNNER_SECRET_FOR_TEST).toBeUndefined();
  });

  it('signed out: no PR, the seed’s note says to raise it by hand', async () => {
    world.setGh('signed-out');
    const { record, short } = await deliverOne();
    expect(world.ghCalls().map((c) => c.argv)).toEqual([['auth', 'status']]);
    expect(record).toMatchObject({ pushed: true, prUrl: null });
    expect(record.note).toBe(`delivered 1 path(s) to task/mem-pr1 @ ${short}; PR raise failed (gh is not signed in) — raise manually from task/mem-pr1`);
  });

  it('gh not installed: the same note, saying so', async () => {
    world.setGh('absent');
    const { record } = await deliverOne();
    expect(record.note).toMatch(/; PR raise failed \(gh is not installed\) — raise manually from task\/mem-pr1$/);
  });

  it('a profile that wants no PR never calls gh', async () => {
    const { record, short } = await deliverOne({ raisePr: false });
    expect(world.ghCalls()).toEqual([]);
    expect(record.note).toBe(`delivered 1 path(s) to task/mem-pr1 @ ${short}`);
  });
});
