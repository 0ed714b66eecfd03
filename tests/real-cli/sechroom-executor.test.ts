import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppServerTurns } from '../../main/core/planes/sechroom/app-server-turns';
import { InflightJournal } from '../../main/core/planes/sechroom/inflight-journal';
import { sechroomUsage } from '../../main/core/planes/sechroom/usage-account';
import { commandFor } from '../../main/core/exec/child-launch';
import { AppServerPool } from '../../main/core/exec/codex-app-server/server-pool';
import { systemClock } from '../../main/core/base/ports';
import { UsageBook } from '../../main/core/usage/usage-book';
import { UsageLog } from '../../main/core/usage/usage-log';
import { UsageService } from '../../main/core/usage/usage-service';
import { FakeClock } from '../helpers/fake-clock';
import { startResponsesStub, type ResponsesRecordedRequest, type ResponsesReply, type ResponsesStub } from '../stubs/openai-responses-stub';
import { rig, type Rig } from '../core/planes/sechroom/sechroom-harness';
import { CODEX_BIN, codexEnv, tempDir } from './real-cli-env';

// The Sechroom executor session end to end: the Work Layer emulator (on the rig's fake
// clock), and each turn on the real `codex app-server` (codex-cli 0.171.0) against the
// loopback Responses stub, with sechroom_closeout and sechroom_lifecycle_signal as the
// thread's dynamic tools.

/** The model's script: a phase signal, then the closeout, then a last answer. */
function closingModel(terminalStatus: string, summary = 'Added the export.'): (req: ResponsesRecordedRequest) => ResponsesReply {
  return (req) => {
    const outputs = req.body.input.filter((item) => item.type === 'function_call_output').length;
    if (outputs === 0) return { kind: 'function_call', name: 'sechroom_lifecycle_signal', arguments: { phase: 'work', status: 'started', summary: 'on it' } };
    if (outputs === 1)
      return { kind: 'function_call', name: 'sechroom_closeout', arguments: { terminal_status: terminalStatus, summary, evidence: ['billing/export.ts'] } };
    return { kind: 'text', text: 'CLOSED OUT' };
  };
}

describe.sequential('Sechroom executor session with the real codex app-server', () => {
  let api: ResponsesStub;
  let home: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  let r: Rig | null = null;
  const pools: AppServerPool[] = [];

  beforeAll(async () => {
    api = await startResponsesStub();
    home = tempDir('sechroom-codex-home');
    env = { ...codexEnv(home.dir, api.baseUrl), PATH: process.env.PATH ?? '' };
  });

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.stopAll()));
    await r?.close();
    r = null;
    api.headers = {};
  });

  afterAll(async () => {
    await api?.close();
    home?.remove();
  });

  const turnsFor = (rig: Rig, extra: Partial<ConstructorParameters<typeof AppServerTurns>[0]> = {}) => {
    const pool = new AppServerPool({ log: rig.logs.log, clock: systemClock, clientVersion: '0.0.0-test' });
    pools.push(pool);
    const command = commandFor(CODEX_BIN, ['app-server']);
    const turns = new AppServerTurns({
      pool,
      server: async () => ({ command: command.command, args: command.args, env: { ...env, ...command.env }, cwd: rig.tmp }),
      clock: systemClock,
      log: rig.logs.log,
      ...extra,
    });
    return { pool, turns };
  };

  const task = (rig: Rig, title = 'Add CSV export') =>
    rig.emu.sechroom.createTask({
      title,
      objective: 'Export invoices as CSV.',
      acceptance: 'A CSV downloads.',
      boundaries: 'Billing only.',
      closeout: 'Files changed.',
    });

  it('claims a task and completes it pass through a real codex turn that signals its phase and closes out; only the terminal event is sent', async () => {
    r = await rig();
    const t = task(r);
    api.respond = closingModel('completed');
    const { turns } = turnsFor(r);
    const { session, records } = await r.session({ turns, once: true });
    expect(await session.run()).toEqual({ processed: 1, completed: 1, abandoned: 0 });

    const [completion] = r.emu.sechroom.listCompletions({ memory_id: t.memoryId });
    expect(completion).toMatchObject({
      verdict: 'pass',
      title: 'Add CSV export — driven closeout',
      text: 'Added the export.\n\nEvidence:\n- billing/export.ts\n\n(terminal_status: completed; driven by sechroom executor run.)',
    });
    const events = r.emu.sechroom.listTelemetry({ decomposition_id: t.decompositionId });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'Terminal', verdict: 'pass', text: 'Added the export.', modelId: 'stub-model', tokensOut: expect.any(Number) });
    expect(events[0]!.tokensIn).toBeGreaterThan(0);
    expect(records.at(-1)).toMatchObject({ state: 'completed', verdict: 'pass', phase: 'work:started', lease: 'completed' });
    // The model got the card as developer instructions and both tools.
    const first = api.requests.at(-3)!;
    expect(first.raw).toContain('## Objective');
    expect(first.raw).toContain('"sechroom_closeout"');
    expect(first.raw).toContain('"sechroom_lifecycle_signal"');
    expect(api.requests.at(-1)!.raw).toContain('closeout accepted');
    expect(r.emu.sechroom.listInstances()[0]).toMatchObject({ status: 'deregistered' });
  });

  it.each([
    ['needs_approval', 'blocked'],
    ['cancelled', 'blocked'],
    ['error', 'soft-fail'],
  ])('maps a real closeout of %s to %s and sends the details, then the terminal event', async (status, verdict) => {
    r = await rig();
    const t = task(r);
    api.respond = closingModel(status, 'could not finish');
    const { turns } = turnsFor(r);
    const { session } = await r.session({ turns, once: true });
    await session.run();
    expect(r.emu.sechroom.listCompletions({ memory_id: t.memoryId })[0]).toMatchObject({ verdict });
    const events = r.emu.sechroom.listTelemetry({ decomposition_id: t.decompositionId });
    expect(events[0]).toMatchObject({ kind: 'Parsed', text: 'phase:work:started' });
    expect(events.at(-1)).toMatchObject({ kind: 'Terminal', verdict, text: 'could not finish' });
    // The final answer is a thread item: a Raw detail, as the seed maps agentMessage.
    expect(events.some((e) => e.kind === 'Raw' && String(e.text).includes('agentMessage'))).toBe(true);
  });

  it('a cancel_requested heartbeat answer interrupts the real turn (turn/interrupt); no completion is sent', async () => {
    r = await rig();
    const t = task(r);
    let hung!: () => void;
    const hanging = new Promise<void>((resolve) => (hung = resolve));
    api.respond = (req) => {
      if (req.body.input.some((i) => i.type === 'function_call_output')) {
        hung();
        return { kind: 'hang' };
      }
      return { kind: 'function_call', name: 'sechroom_lifecycle_signal', arguments: { phase: 'work', status: 'started', summary: 'on it' } };
    };
    const { turns } = turnsFor(r);
    const { session, records } = await r.session({ turns, once: true });
    const done = session.run();
    await hanging;
    const [lease] = r.emu.sechroom.listLeases({ memory_id: t.memoryId });
    r.emu.sechroom.cancelLease(lease!.id, 'brief_paused');
    await r.clock.advanceAsync(30_000);
    expect(await done).toEqual({ processed: 1, completed: 0, abandoned: 1 });
    expect(r.logs.entries.some((e) => e.msg === 'interrupting the codex turn')).toBe(true);
    expect(r.logs.entries.some((e) => e.msg.startsWith('the codex turn did not stop'))).toBe(false);
    expect(r.emu.sechroom.listCompletions({ memory_id: t.memoryId })).toHaveLength(0);
    expect(records.at(-1)).toMatchObject({ state: 'canceled', lease: 'left_to_expire', phase: 'work:started' });
  });

  it('a crash mid-turn, then a restart: the dead turn is reported, its lease expires, and the task completes once', async () => {
    r = await rig();
    const t = task(r);
    const journal = new InflightJournal(path.join(r.tmp, 'inflight'));
    let hung!: () => void;
    const hanging = new Promise<void>((resolve) => (hung = resolve));
    let first = true;
    api.respond = (req) => {
      if (first) {
        first = false;
        hung();
        return { kind: 'hang' };
      }
      return closingModel('completed')(req);
    };
    // The first process: mid-turn it "dies" (its clock stops; its codex turn never ends).
    const dead = await r.session({ turns: turnsFor(r).turns, once: true, journal, clock: new FakeClock(r.clock.now()) });
    void dead.session.run();
    await hanging;

    const { session, records } = await r.session({ turns: turnsFor(r).turns, once: true, journal });
    let finished = false;
    const done = session.run().finally(() => (finished = true));
    await r.pump(() => finished, 5_000);
    expect(await done).toEqual({ processed: 1, completed: 1, abandoned: 0 });
    expect(records[0]).toMatchObject({ memoryId: t.memoryId, state: 'abandoned', lease: 'left_to_expire' });
    expect(r.emu.sechroom.listLeases({ memory_id: t.memoryId }).map((l) => l.status)).toEqual(['expired', 'completed']);
    expect(r.emu.sechroom.listCompletions({ memory_id: t.memoryId })).toHaveLength(1);
  });

  it('defers claiming at the usage reserve once codex reports the account nearly spent (main/core/usage), with the seed line', async () => {
    r = await rig();
    const resetAt = Math.floor(r.clock.now() / 1000) + 3600;
    api.headers = {
      'x-codex-primary-used-percent': '99',
      'x-codex-primary-window-minutes': '300',
      'x-codex-primary-reset-at': String(resetAt),
    };
    api.respond = closingModel('completed');
    const first = task(r, 'First');
    const second = task(r, 'Second');
    const usageDir = path.join(r.tmp, 'usage');
    const service = new UsageService({
      clock: r.clock,
      log: r.logs.log,
      book: new UsageBook(path.join(usageDir, 'accounts.json')),
      usageLog: new UsageLog({ dir: usageDir, log: r.logs.log, now: () => r!.clock.now() }),
      alias: () => 'default',
      // The app's own reserve is 0: the instance's --usage-reserve (2) decides.
      reservePercent: () => 0,
      alertThresholds: () => [],
    });
    const usage = sechroomUsage(service, r.settings().usageReservePercent, () => 'default');
    const { turns } = turnsFor(r, { onRateLimits: usage.onRateLimits, onTurnEnded: usage.onTurnEnded });
    const { session, states } = await r.session({ turns, admission: usage.admission });
    const done = session.run();
    const deferred = await r.logged(/^ADMISSION DEFERRED/);
    expect(deferred).toMatch(/^ADMISSION DEFERRED — not claiming: rate-limit remaining 1\.0% \(primary window\) is at or below the 2% reserve; resets at /);
    // The completion goes out through the outbox, on the session's (fake) clock.
    await r.pump(() => r!.emu.sechroom.listCompletions({ memory_id: first.memoryId }).length === 1);
    expect(r.emu.sechroom.listCompletions({ memory_id: first.memoryId })).toHaveLength(1);
    expect(r.emu.sechroom.getTask(second.memoryId)).toMatchObject({ status: 'ready' });
    expect(states.at(-1)).toMatchObject({ state: 'deferred' });
    expect(service.snapshot().accounts[0]).toMatchObject({ key: 'codex:default' });
    await session.stop();
    await done;
  });
});
