import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitWorkspaces } from '../../../../main/core/planes/sechroom/delivery-wiring';
import { slug } from '../../../../main/core/delivery/delivery-texts';
import { gitWorld, type GitWorld } from '../../delivery/git-fixture';
import { closingTurn, rig, ScriptedTurnRunner, type Rig, type ScriptedTurn } from './sechroom-harness';

// Git delivery wired into the executor session: the emulator's Work Layer, the session's
// real loop and outbox, a scripted turn that writes in its working folder, and real git
// (a bare origin, the operator's checkout on a branch of its own with uncommitted changes).

let r: Rig | null = null;
let world: GitWorld | null = null;
afterEach(async () => {
  await r?.close();
  world?.cleanup();
  r = world = null;
});

/** A turn that writes a file where it runs, then does what `then` says. */
const writing =
  (then: ScriptedTurn): ScriptedTurn =>
  (req) => {
    writeFileSync(path.join(req.cwd, 'export.csv'), 'id,total\n');
    return then(req);
  };

async function setup(raisePr = false) {
  r = await rig();
  world = gitWorld();
  const log = r.logs.log;
  const workspaces = new GitWorkspaces({ delivery: world.delivery(), settings: r.settings({ root: world.root }), raisePr, maxPushMiB: 100, log });
  return { r, world, workspaces };
}

const branches = (w: GitWorld, where: string) => w.git(where, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/task/').trim();

describe('git delivery in the Sechroom executor session', () => {
  it('runs the turn in a worktree of its own and delivers it: branch pushed with the seed message, the note ends the completion', async () => {
    const { r, world, workspaces } = await setup();
    const t = r.emu.sechroom.createTask({ title: 'Add CSV export', objective: 'Export.' });
    const turns = new ScriptedTurnRunner(writing(closingTurn('completed', 'Exported.')));
    const { session, records } = await r.session({ turns, once: true, settings: { root: world.root }, workspace: workspaces });
    expect(await session.run()).toMatchObject({ processed: 1, completed: 1 });

    const cwd = turns.requests[0]!.cwd;
    expect(cwd).not.toBe(world.root);
    expect(existsSync(cwd)).toBe(false);
    const branch = `task/${slug(t.memoryId)}`;
    const [completion] = r.emu.sechroom.listCompletions({ memory_id: t.memoryId });
    const git = records.at(-1)!.git!;
    expect(git).toMatchObject({ branch, pushed: true, prUrl: null, base: { ref: 'feature' } });
    expect(completion!.text).toMatch(/^Exported\./);
    expect(completion!.text.endsWith(`\n\nDelivery: ${git.note}`)).toBe(true);
    expect(world.git(world.origin, 'log', '-1', '--format=%s', branch).trim()).toBe(`task(${t.memoryId}): Add CSV export [verdict:pass]`);
    expect(world.git(world.origin, 'show', `${branch}:export.csv`)).toBe('id,total\n');
    // The operator's checkout, branch and uncommitted changes: byte for byte as they were.
    expect(world.rootFingerprint()).toBe(world.initialFingerprint);
  });

  it('delivers for a failing verdict too, with the verdict in the subject', async () => {
    const { r, world, workspaces } = await setup();
    const t = r.emu.sechroom.createTask({ title: 'Fix totals', objective: 'Fix.' });
    const turns = new ScriptedTurnRunner(writing(closingTurn('error', 'Could not finish.')));
    const { session } = await r.session({ turns, once: true, settings: { root: world.root }, workspace: workspaces });
    await session.run();
    const branch = `task/${slug(t.memoryId)}`;
    expect(r.emu.sechroom.listCompletions({ memory_id: t.memoryId })[0]).toMatchObject({ verdict: 'soft-fail' });
    expect(world.git(world.origin, 'log', '-1', '--format=%s', branch).trim()).toBe(`task(${t.memoryId}): Fix totals [verdict:soft-fail]`);
  });

  it('an abandoned turn (crash) discards its worktree and branch: nothing pushed, nothing completed', async () => {
    const { r, world, workspaces } = await setup();
    const t = r.emu.sechroom.createTask({ title: 'Add CSV export', objective: 'Export.' });
    const turns = new ScriptedTurnRunner(writing(() => ({ status: 'crashed', reason: 'codex exited' })));
    const { session, records } = await r.session({ turns, once: true, settings: { root: world.root }, workspace: workspaces });
    expect(await session.run()).toMatchObject({ processed: 1, abandoned: 1 });
    expect(records.at(-1)).toMatchObject({ state: 'abandoned', lease: 'left_to_expire', git: null });
    expect(r.emu.sechroom.listCompletions({ memory_id: t.memoryId })).toEqual([]);
    expect(existsSync(turns.requests[0]!.cwd)).toBe(false);
    expect(branches(world, world.root)).toBe('');
    expect(branches(world, world.origin)).toBe('');
    expect(world.rootFingerprint()).toBe(world.initialFingerprint);
    // Its registry note and its folder under the delivery state are gone too.
    expect(readdirSync(path.join(world.stateDir, 'registry'))).toEqual([]);
    expect(readdirSync(path.join(world.stateDir, 'trees'))).toEqual([]);
  });

  it('a turn the Work Layer cancels (heartbeat cancel_requested) discards its worktree: nothing committed or pushed', async () => {
    const { r, world, workspaces } = await setup();
    const t = r.emu.sechroom.createTask({ title: 'Add CSV export', objective: 'Export.' });
    const turns = new ScriptedTurnRunner(
      writing(
        (req) =>
          new Promise((resolve) => {
            req.signal.addEventListener('abort', () => resolve({ status: 'canceled', reason: 'interrupted' }));
            const [lease] = r.emu.sechroom.listLeases({ memory_id: t.memoryId });
            r.emu.sechroom.cancelLease(lease!.id, 'brief_superseded');
            r.clock.advance(30_000);
          }),
      ),
    );
    const { session, records } = await r.session({ turns, once: true, settings: { root: world.root }, workspace: workspaces });
    expect(await session.run()).toMatchObject({ processed: 1, abandoned: 1 });
    expect(records.at(-1)).toMatchObject({ state: 'canceled', git: null });
    expect(existsSync(turns.requests[0]!.cwd)).toBe(false);
    expect(branches(world, world.root)).toBe('');
    expect(branches(world, world.origin)).toBe('');
    expect(world.rootFingerprint()).toBe(world.initialFingerprint);
  });

  it('the operator interrupts the task in flight (Turns view): no completion, the worktree discarded, the lease left to expire', async () => {
    const { r, world, workspaces } = await setup();
    const t = r.emu.sechroom.createTask({ title: 'Add CSV export', objective: 'Export.' });
    let session: Awaited<ReturnType<Rig['session']>>['session'] | null = null;
    const turns = new ScriptedTurnRunner(
      writing(
        (req) =>
          new Promise((resolve) => {
            req.signal.addEventListener('abort', () => resolve({ status: 'canceled', reason: String((req.signal.reason as Error).message) }));
            expect(session!.interrupt('lse_not_this_one')).toBe(false);
            expect(session!.interrupt(req.leaseId)).toBe(true);
          }),
      ),
    );
    const started = await r.session({ turns, once: true, settings: { root: world.root }, workspace: workspaces });
    session = started.session;
    expect(await session.run()).toMatchObject({ processed: 1, abandoned: 1 });
    expect(started.records.at(-1)).toMatchObject({ state: 'canceled', lease: 'left_to_expire', note: expect.stringMatching(/^canceled by the operator — /) });
    expect(r.emu.sechroom.listCompletions({ memory_id: t.memoryId })).toEqual([]);
    expect(existsSync(turns.requests[0]!.cwd)).toBe(false);
    expect(branches(world, world.origin)).toBe('');
    expect(session.interrupt(turns.requests[0]!.leaseId)).toBe(false);
  });

  it('a root that is not a git checkout: the task is abandoned with the reason and no turn runs', async () => {
    const { r, world } = await setup();
    const notARepo = path.join(world.dir, 'plain');
    mkdirSync(notARepo);
    const workspaces = new GitWorkspaces({
      delivery: world.delivery(),
      settings: r.settings({ root: notARepo }),
      raisePr: false,
      maxPushMiB: 100,
      log: r.logs.log,
    });
    r.emu.sechroom.createTask({ title: 'Add CSV export', objective: 'Export.' });
    const turns = new ScriptedTurnRunner(closingTurn('completed'));
    const { session, records } = await r.session({ turns, once: true, settings: { root: notARepo }, workspace: workspaces });
    expect(await session.run()).toMatchObject({ processed: 1, abandoned: 1 });
    expect(turns.requests).toEqual([]);
    expect(records.at(-1)).toMatchObject({ state: 'abandoned', note: expect.stringMatching(/^ABANDONED mem_.*lease will expire/) });
  });
});
