import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { notes } from '../../main/core/delivery/delivery-texts';
import { NO_EXECUTOR_STATE, stateRuntimeNotCodex } from '../../main/core/planes/sechroom/executor-state';
import { FleetConfigError, parseFleetConfig } from '../../main/core/planes/sechroom/fleet-config';
import { noRefreshTokenMessage, refreshFailedMessage, SECHROOM_TOKEN_REJECTED, stillUnauthorizedMessage } from '../../main/core/planes/sechroom/sechroom-auth';
import { RunLines } from '../../main/headless/run-lines';
import { InstanceUsageLines } from '../../main/core/planes/sechroom/usage-lines';
import { checkInstanceSettings, RUNTIME_CODEX_ONLY } from '../../shared/sechroom-instance-settings';
import type { LogEntry } from '../../shared/contract';
import { closingTurn, rig, ScriptedTurnRunner, type Rig } from '../core/planes/sechroom/sechroom-harness';

/*
 * Every operator-facing string of the Sechroom seed (sechroom-protocol.md B14, by the seed
 * diff's line), and where Runner Tray says it:
 * - `emulator`: triggered here, against the emulator's Work Layer (the executor's run logs,
 *   claims, completion texts), and matched whole against what was logged or completed;
 * - `call`: produced by the code that says it, for sample values (validation, auth, fleet,
 *   delivery notes, the fleet supervisor lines), and matched whole;
 * - `source`: its fixed words are in the named file (lines that need a codex app-server, a
 *   failing disk or a failing git to trigger; their behaviour has tests of its own);
 * - `n/a`: the seed prints it for something Runner Tray does not have, and why.
 * `${…}` in a text stands for what the seed fills in.
 */

type Where = { emulator: true } | { call: () => string | string[] } | { source: string } | { na: string };
interface SeedString {
  line: number;
  text: string;
  where: Where;
}

const sechroom = 'main/core/planes/sechroom/';
const appServer = 'main/core/exec/codex-app-server/';

const fleetError = (text: string): string => {
  try {
    parseFleetConfig(text, 'fleet.json', '/');
  } catch (error) {
    if (error instanceof FleetConfigError) return error.message;
  }
  return '(no error)';
};
const settingsError = (input: Record<string, unknown>): string => {
  const checked = checkInstanceSettings({ instanceKey: 'a', root: '/r', ...input });
  return checked.ok ? '(accepted)' : checked.message;
};
const fleetLines = (): string[] => {
  const listeners = new Set<(e: LogEntry) => void>();
  const out: string[] = [];
  const lines = new RunLines(
    { subscribe: (l: (e: LogEntry) => void) => (listeners.add(l), () => listeners.delete(l)) } as never,
    [
      { id: 'a', instanceKey: 'codex-a' },
      { id: 'b', instanceKey: 'codex-b' },
    ],
    { write: (t: string) => out.push(t.replace(/\n$/, '')) },
  );
  lines.shutdown();
  for (const l of listeners) l({ level: 'info', time: '', msg: 'done — processed 0, completed 0, abandoned 0', component: 'profile:a' } as LogEntry);
  return out;
};

const usageLines = (): string[] => {
  const said: string[] = [];
  const lines = new InstanceUsageLines('codex-a', { info: (m: string) => said.push(m) }, () => 0);
  lines.rateLimits({ primary: { usedPercent: 97.5, windowMinutes: 300, resetsAt: null }, secondary: null });
  lines.turnEnded('mem_1', {
    tokens: { inputTokens: 1200, outputTokens: 300, cachedInputTokens: 0, contextUsed: 1500, contextWindow: 200_000, modelId: null },
  });
  lines.rateLimits({ primary: null, secondary: null });
  expect(said).toEqual([
    'rate-limit update: remaining 2.5% (primary window)',
    'usage[codex-a]: instance total in 1,200 out 300 across 1 task(s); turn 1,500 / 200,000 (0.8%); rate-limit remaining 2.5%',
    'rate-limit update: all windows recovered',
  ]);
  return said;
};

const NO_SIGNALR = 'Runner Tray has no SignalR wake leg: each instance long-polls its offers';
const NO_CHILDREN = 'the fleet’s instances are profiles of one host, not child processes';
const NO_TELEMETRY_CLI = 'Runner Tray has no `sechroom telemetry` commands: the executor sends its own telemetry';
const ROOT_UNTOUCHED = 'tasks work in worktrees of their own: the root is never refused for its changes, never checked out';
const USAGE_ACCOUNTS = 'usage is logged per model account, for all the instances on it, in the host’s usage.jsonl: there is no usage log per instance to name';

export const SEED_STRINGS: SeedString[] = [
  // Auth
  {
    line: 12,
    text: 'SECHROOM_TOKEN was rejected (401) and cannot be refreshed — mint a fresh bearer and re-export SECHROOM_TOKEN.',
    where: { call: () => SECHROOM_TOKEN_REJECTED },
  },
  {
    line: 17,
    text: 'Session for account "${cfg.account}" was rejected (401) and has no refresh token. Run `sechroom login --account ${cfg.account}` again.',
    where: { call: () => noRefreshTokenMessage('ops') },
  },
  {
    line: 29,
    text: 'Token refresh failed (${res.status}). Run `sechroom login --account ${cfg.account}` again.',
    where: { call: () => refreshFailedMessage('ops', 400) },
  },
  {
    line: 1514,
    text: '${method} ${path} still 401 after token refresh — re-authenticate (`sechroom login`).',
    where: { call: () => stillUnauthorizedMessage('GET', '/x') },
  },
  // Run validation
  {
    line: 1719,
    text: 'executor run drives runtime codex only (claude-code stays attached)',
    where: { call: () => [RUNTIME_CODEX_ONLY, settingsError({ runtime: 'claude-code' })] },
  },
  {
    line: 1723,
    text: 'executor run requires an installed executor advertisement; run `sechroom executor install` first.',
    where: { call: () => NO_EXECUTOR_STATE },
  },
  {
    line: 1727,
    text: "this checkout's executor advertisement is runtime '${located.state.runtime}' — reinstall with --runtime codex.",
    where: { call: () => stateRuntimeNotCodex('claude-code') },
  },
  { line: 1738, text: '--heartbeat-interval must be shorter than the 120s lease TTL', where: { call: () => settingsError({ heartbeatIntervalSeconds: 120 }) } },
  { line: 1741, text: '--usage-reserve must be a percent in [0, 100)', where: { call: () => settingsError({ usageReservePercent: 100 }) } },
  // Run logs
  { line: 1773, text: 'codex app-server up (${String(opts.codexBin)})', where: { source: `${sechroom}app-server-turns.ts` } },
  { line: 1780, text: 'shutdown requested — finishing up', where: { emulator: true } },
  { line: 1799, text: 'SignalR wake leg unavailable (${String(e)}) — poll-only', where: { na: NO_SIGNALR } },
  { line: 1810, text: 'advertisement refresh failed: ${String(e)}', where: { source: `${sechroom}advertisement.ts` } },
  { line: 1857, text: 'codex app-server died between tasks — respawning', where: { source: `${appServer}server-pool.ts` } },
  { line: 1895, text: 'driven executor live — instance ${key}, lane ${lane}, single-task mode', where: { emulator: true } },
  { line: 1897, text: 'usage log → ${usageLogPath}; admission reserve ${usageReserve}%', where: { na: USAGE_ACCOUNTS } },
  { line: 1906, text: 'done — processed ${summary.processed}, completed ${summary.completed}, abandoned ${summary.abandoned}', where: { emulator: true } },
  { line: 1911, text: 'auth expired: ${error.message}', where: { source: `${sechroom}executor-session.ts` } },
  { line: 1927, text: 'deregistered', where: { emulator: true } },
  { line: 1929, text: 'deregister failed (${String(e)}) — advertisement will expire by TTL', where: { source: `${sechroom}advertisement.ts` } },
  {
    line: 1961,
    text: 'warning: task ${card.taskId} context pack (${pointer.slug}@${pointer.version}) failed to resolve (${String(error)}) — running on card body only',
    where: { emulator: true },
  },
  // Driver
  { line: 1558, text: 'ADMISSION DEFERRED — not claiming: ${admission.reason}', where: { source: `${sechroom}claim-gates.ts` } },
  { line: 1565, text: 'admission recovered — resuming claims', where: { source: `${sechroom}claim-gates.ts` } },
  { line: 1571, text: 'root not ready — not claiming: ${ready.reason}', where: { source: `${sechroom}claim-gates.ts` } },
  { line: 1582, text: 'claimed ${claim.memoryId} (lease ${claim.leaseId})', where: { emulator: true } },
  {
    line: 1597,
    text: 'ABANDONED ${claim.memoryId}: turn timed out — lease will expire and the task re-offers (work may re-run).',
    where: { emulator: true },
  },
  { line: 1605, text: 'delivery: ${delivery.note}', where: { source: 'main/core/delivery/git-delivery.ts' } },
  { line: 1611, text: 'delivery threw (continuing to completion): ${String(e)}', where: { emulator: true } },
  { line: 1614, text: '${text}\n\nDelivery: FAILED unexpectedly (${String(e)}) — changes remain in the executor root.', where: { emulator: true } },
  { line: 1626, text: 'completed ${claim.memoryId} verdict:${verdict} → ${done.completionMemoryId}', where: { emulator: true } },
  {
    line: 1632,
    text: 'COMPLETE REJECTED for ${claim.memoryId} (${String(e)}) — task will re-offer; investigate the heartbeat gap.',
    where: { source: `${sechroom}sechroom-outbox.ts` },
  },
  { line: 1642, text: 'Driven codex run ended without a sechroom_closeout packet (soft-fail). Last agent message:\n\n${message}', where: { emulator: true } },
  { line: 1651, text: '${summary}\n\nEvidence:\n- ${e}\n\n(terminal_status: ${status}; driven by sechroom executor run.)', where: { emulator: true } },
  { line: 1658, text: 'lease heartbeat failed (retrying next beat): ${String(e)}', where: { source: `${sechroom}lease-keeper.ts` } },
  // Claim
  { line: 149, text: 'claim-next returned ${next.outcome}; falling through to direct per-generation claim', where: { source: `${sechroom}claim-path.ts` } },
  // Codex
  { line: 442, text: 'codex app-server exited (${code})', where: { source: `${appServer}connection.ts` } },
  { line: 448, text: 'codex! ${chunk}', where: { source: `${appServer}connection.ts` } },
  { line: 524, text: 'lifecycle ${phase}:${status} — ${summary}', where: { emulator: true } },
  { line: 529, text: "unknown dynamic tool '${name}' — acknowledged empty", where: { source: `${appServer}turn-observer.ts` } },
  { line: 536, text: 'approval requested (${method}) under approvalPolicy=never — DENIED (unattended run)', where: { source: `${appServer}turn-observer.ts` } },
  {
    line: 581,
    text: 'fresh turn timed out after ${ms}ms with substantial work — resuming thread ${threadId}',
    where: { source: `${appServer}turn-runner.ts` },
  },
  { line: 605, text: 'thread resume failed: ${String(error)}', where: { source: `${appServer}turn-runner.ts` } },
  { line: 628, text: 'telemetry emit failed (non-fatal): ${String(error)}', where: { source: `${sechroom}sechroom-outbox.ts` } },
  { line: 634, text: 'telemetry absent: claimed task carried no wlp-decomposition tag', where: { source: `${sechroom}executor-task-run.ts` } },
  { line: 666, text: 'codex app-server is not running', where: { source: `${appServer}connection.ts` } },
  { line: 683, text: 'codex? ${line}', where: { source: `${appServer}connection.ts` } },
  { line: 691, text: 'app-server error', where: { source: `${appServer}connection.ts` } },
  { line: 715, text: 'app-server exited (${code})', where: { source: `${appServer}connection.ts` } },
  {
    line: 724,
    text: 'codex version: ${version}',
    where: { na: 'the codex version is detected with the runtimes (the Runtimes card), not pinned per instance' },
  },
  {
    line: 728,
    text: 'warning: could not pin codex version: ${message}',
    where: { na: 'the codex version is detected with the runtimes (the Runtimes card), not pinned per instance' },
  },
  // Usage
  {
    line: 249,
    text: 'rate-limit remaining ${r}% (${window} window) is at or below the ${reservePercent}% reserve',
    where: { source: 'main/core/usage/admission.ts' },
  },
  {
    line: 301,
    text: 'rate-limit update: remaining ${r}% (${window} window)',
    where: { call: () => usageLines().filter((l) => l.startsWith('rate-limit update: remaining')) },
  },
  {
    line: 327,
    text: 'usage[${instanceKey}]: instance total in ${in} out ${out} across ${n} task(s); turn ${used} / ${window} (${pct}%); rate-limit remaining ${r}%',
    where: { call: () => usageLines().filter((l) => l.startsWith('usage[')) },
  },
  { line: 367, text: 'usage log append failed (${String(error)}) — continuing without ${path}', where: { source: 'main/core/usage/usage-log.ts' } },
  // Delivery
  {
    line: 1363,
    text: 'root has ${n} uncommitted path(s) (e.g. ${first}) — refusing to claim; commit/clean it or pass --allow-dirty-root',
    where: { na: ROOT_UNTOUCHED },
  },
  { line: 1369, text: 'delivery skipped — git status failed: ${stderr}', where: { call: () => notes.statusFailed('fatal: bad index') } },
  { line: 1373, text: 'no file changes produced by the turn — nothing to deliver', where: { call: () => notes.nothing } },
  { line: 1379, text: 'could not create branch ${branch}: ${stderr}', where: { source: 'main/core/delivery/worktrees.ts' } },
  { line: 1384, text: 'git add failed: ${stderr}', where: { source: 'main/core/delivery/deliver.ts' } },
  { line: 1390, text: 'git commit failed: ${stderr}', where: { source: 'main/core/delivery/deliver.ts' } },
  { line: 1394, text: 'push failed (${firstLine}) — branch is local-only', where: { call: () => notes.pushFailed('fatal: no remote\nmore') } },
  {
    line: 1408,
    text: 'PR raise failed (${firstLine}) — raise manually from ${branch}',
    where: { call: () => notes.prFailed('gh is not signed in', 'task/mem-1') },
  },
  {
    line: 1411,
    text: 'delivered ${n} path(s) to ${branch} @ ${sha} — PR ${prUrl}',
    where: { call: () => notes.delivered(2, 'task/mem-1', 'abc1234', 'https://github.com/a/b/pull/1') },
  },
  { line: 1418, text: 'delivery: could not return root to ${baseBranch}: ${stderr}', where: { na: ROOT_UNTOUCHED } },
  { line: 1422, text: 'delivery FAILED — ${reason}', where: { call: () => notes.failed('git add failed: x') } },
  // Fleet
  { line: 783, text: "fleet config must contain a non-empty 'instances' array", where: { call: () => fleetError('{"instances": []}') } },
  { line: 787, text: "each fleet instance requires string 'root' and 'instanceKey'", where: { call: () => fleetError('{"instances": [{"root": "/r"}]}') } },
  {
    line: 788,
    text: "duplicate fleet instanceKey '${entry.instanceKey}'",
    where: { call: () => fleetError('{"instances": [{"root": "/r", "instanceKey": "a"}, {"root": "/s", "instanceKey": "a"}]}') },
  },
  { line: 825, text: 'cannot locate the sechroom CLI entrypoint', where: { na: NO_CHILDREN } },
  { line: 844, text: '[${entry.instanceKey}] exited (${signal ?? code})', where: { call: () => fleetLines().filter((l) => /\] exited \(/.test(l)) } },
  { line: 822, text: '[fleet] ${key}=${state} ${key}=${state}', where: { call: () => fleetLines().filter((l) => l.startsWith('[fleet]')) } },
  // Telemetry CLI
  { line: 1029, text: 'Telemetry emit failed: ${e.message}', where: { na: NO_TELEMETRY_CLI } },
  { line: 1036, text: ' — ${event.kind} for task ${opts.task}; run now carries ${body.eventCount} event(s)', where: { na: NO_TELEMETRY_CLI } },
  { line: 1054, text: 'no telemetry yet for ${id} (run not started or not yet reporting)', where: { na: NO_TELEMETRY_CLI } },
  { line: 1191, text: 'HTTP ${resp.status}: ${text}', where: { na: NO_TELEMETRY_CLI } },
  { line: 1319, text: "Unknown --kind '${k}'. Expected one of: raw, parsed, approval, terminal.", where: { na: NO_TELEMETRY_CLI } },
  { line: 1325, text: "Expected an integer, got '${v}'.", where: { na: NO_TELEMETRY_CLI } },
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PLACEHOLDER = /\$\{[^}]*\}/g;
/** The seed's text as a whole-string pattern: each `${…}` stands for anything. */
const patternOf = (text: string) => new RegExp(`^${text.split(PLACEHOLDER).map(escape).join('.+?')}$`, 's');
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('the Sechroom seed’s operator-facing strings (B14), each where it applies', () => {
  it('lists every line the catalogue names, once', () => {
    const lines = SEED_STRINGS.map((s) => s.line);
    expect(new Set(lines).size).toBe(lines.length);
    expect(lines.length).toBe(77);
  });

  it.each(SEED_STRINGS.filter((s) => 'call' in s.where).map((s) => [s.line, s] as const))('line %i: the code says it, word for word', (_line, s) => {
    const said = [(s.where as { call: () => string | string[] }).call()].flat();
    expect(said.length).toBeGreaterThan(0);
    for (const text of said) expect(text).toMatch(patternOf(s.text));
  });

  it.each(SEED_STRINGS.filter((s) => 'source' in s.where).map((s) => [s.line, s] as const))('line %i: its words are in the file that says it', (_line, s) => {
    const file = (s.where as { source: string }).source;
    const code = readFileSync(`${repoRoot}${file}`, 'utf8').replace(/\\`/g, '`');
    for (const part of s.text.split(PLACEHOLDER).filter((p) => p.trim().length > 1))
      expect({ file, part, found: code.includes(part) }).toEqual({ file, part, found: true });
  });

  it('says why each of the others does not apply', () => {
    for (const s of SEED_STRINGS.filter((x) => 'na' in x.where)) expect((s.where as { na: string }).na.length).toBeGreaterThan(20);
  });
});

describe('the seed’s run, claim and completion lines, triggered against the emulator', () => {
  let r: Rig | null = null;
  afterEach(async () => {
    await r?.close();
    r = null;
  });

  it('every `emulator` string is logged or completed as the seed words it', { timeout: 60_000 }, async () => {
    r = await rig();
    const rigged = r;
    const said: string[] = [];
    const once = async (turns: ScriptedTurnRunner, extra: Record<string, unknown> = {}, task: Record<string, unknown> = {}) => {
      const t = rigged.emu.sechroom.createTask({ title: 'Add CSV export', objective: 'Export invoices as CSV.', ...task } as never);
      const { session } = await rigged.session({ turns, once: true, ...extra });
      await session.run();
      await session.stop();
      said.push(...rigged.emu.sechroom.listCompletions({ memory_id: t.memoryId }).map((c) => c.text));
    };
    // A pass with a lifecycle signal and a closeout (and a context pack the Work Layer fails to serve).
    const fault = rigged.emu.admin.addFault({ route: '/sechroom/bundles/*', error: { rate: 1, status: 500 } });
    await once(
      new ScriptedTurnRunner(closingTurn('completed', 'Added the export.', ['billing/export.ts'])),
      {},
      {
        context_pack: { slug: 'acme', version: '1', components: [{ title: 'x', body: 'y' }] },
      },
    );
    rigged.emu.admin.clearFaults(fault.id);
    // A turn that ends without a closeout.
    await once(new ScriptedTurnRunner(() => ({ status: 'completed', lastAgentMessage: 'I ran out of ideas.', usage: null, turnId: 't' })));
    // A turn that times out without closing out.
    await once(new ScriptedTurnRunner(() => ({ status: 'timeout', reason: 'turn timed out', lastAgentMessage: '', usage: null, turnId: null })));
    // A workspace whose delivery throws.
    const workspace = {
      open: async () => ({
        cwd: rigged.tmp,
        deliver: () => Promise.reject(new Error('the disk is full')),
        discard: async () => undefined,
      }),
    };
    await once(new ScriptedTurnRunner(closingTurn('completed')), { workspace });
    said.push(...rigged.logs.entries.map((e) => e.msg));

    for (const s of SEED_STRINGS.filter((x) => 'emulator' in x.where)) {
      const pattern = patternOf(s.text);
      expect({ line: s.line, found: said.some((text) => pattern.test(text)) }).toEqual({ line: s.line, found: true });
    }
  });
});
