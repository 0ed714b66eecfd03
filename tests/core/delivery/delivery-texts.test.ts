import { describe, expect, it } from 'vitest';
import { porcelainEntries } from '../../../main/core/delivery/deliver';
import { firstFreeBranch, notes, slug } from '../../../main/core/delivery/delivery-texts';
import { deliveryEnv } from '../../../main/core/delivery/git-process';
import { DeliveryRecordSchema } from '../../../shared/delivery';

describe('delivery texts and parsing', () => {
  it('slugs as the seed does, never to an empty name', () => {
    expect(slug('mem-ABC123')).toBe('mem-abc123');
    expect(slug('  WLP::Task #42 / é ')).toBe('wlp-task-42');
    expect(slug('***')).toBe('task');
  });

  it('takes the first free of task/<slug>, -2, -3…', async () => {
    const taken = new Set(['task/x', 'task/x-2']);
    expect(await firstFreeBranch('X', async (b) => taken.has(b))).toBe('task/x-3');
    expect(await firstFreeBranch('y', async () => false)).toBe('task/y');
  });

  it('reads porcelain -z paths: a rename counts once, odd fields are skipped', () => {
    expect(porcelainEntries(' M src/a.ts\0R  new name.ts\0old name.ts\0?? dir/with -> arrow.txt\0\0garbage\0D  gone.ts\0')).toEqual([
      { path: 'src/a.ts', unstaged: true },
      { path: 'new name.ts', unstaged: false },
      { path: 'dir/with -> arrow.txt', unstaged: true },
      { path: 'gone.ts', unstaged: false },
    ]);
    expect(porcelainEntries('')).toEqual([]);
  });

  it('passes git and gh only what they need, and never lets them prompt', () => {
    const env = deliveryEnv({
      PATH: '/usr/bin',
      HOME: '/home/op',
      SSH_AUTH_SOCK: '/run/agent',
      RUNNER_SECRET: 'x',
      GIT_TERMINAL_PROMPT: '1',
      GIT_ASKPASS: '/bin/askpass',
      AWS_SECRET_ACCESS_KEY: 'k',
    });
    expect(env).toMatchObject({
      PATH: '/usr/bin',
      HOME: '/home/op',
      SSH_AUTH_SOCK: '/run/agent',
      GIT_TERMINAL_PROMPT: '0',
      GIT_ASKPASS: '',
      GH_PROMPT_DISABLED: '1',
    });
    expect(env.RUNNER_SECRET).toBeUndefined();
    expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
  });

  it('a delivery record takes only a plain web address as its PR link', () => {
    const record = { branch: 'task/x', base: { commit: 'a'.repeat(40), ref: 'main' }, commit: 'b'.repeat(40), pushed: true, note: 'n', keptWorktree: null };
    expect(DeliveryRecordSchema.safeParse({ ...record, prUrl: 'https://github.com/acme/w/pull/1' }).success).toBe(true);
    for (const prUrl of ['javascript:alert(1)', 'file:///etc/passwd', 'https://user:token@github.com/acme/w/pull/1', 'not a url']) {
      expect(DeliveryRecordSchema.safeParse({ ...record, prUrl }).success).toBe(false);
    }
  });

  it('notes never carry a user or token from a remote’s address', () => {
    expect(notes.pushFailed("fatal: unable to access 'https://x-access-token:ghs_abc@github.com/acme/w.git/': 403\nmore")).toBe(
      "push failed (fatal: unable to access 'https://github.com/acme/w.git/': 403) — branch is local-only",
    );
    expect(notes.failed('git add failed: ssh://git@host/repo')).toBe('delivery FAILED — git add failed: ssh://host/repo');
  });
});
