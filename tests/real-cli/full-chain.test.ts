import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PairingState } from '../../shared/runner';
import type { TurnView } from '../../shared/turns';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { startHarness, type Harness } from '../integration/core-harness';
import { callToolThenText, replyText, startAnthropicStub, type AnthropicStub } from '../stubs/anthropic-stub';
import { CLAUDE_BIN, claudeEnv, tempDir } from './real-cli-env';
import { cliUnavailable, suiteTitle } from '../helpers/environment';

// The whole chain with the real claude CLI: the real core claims a turn from the emulator,
// claude (against a loopback model stub) calls the emulator's /mcp with the unit's
// short-lived token, the result reaches the emulator, and the next turn of the same
// conversation resumes the first one's Claude session.

const unavailable = cliUnavailable('claude', CLAUDE_BIN);

describe.sequential(suiteTitle('real claude, end to end through the emulator', unavailable), { skip: unavailable !== null }, () => {
  let emu: RunningEmulator;
  let api: AnthropicStub;
  let home: ReturnType<typeof tempDir>;
  let h: Harness;

  beforeAll(async () => {
    emu = await startEmulator({ config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000, longPollMaxMs: 2000 } });
    api = await startAnthropicStub(replyText('done'));
    home = tempDir('chain-home');
    h = await startHarness({
      emu,
      settings: { runtime: 'claude' },
      core: { runtimeBinaries: { claude: CLAUDE_BIN, codex: CLAUDE_BIN }, runtimeEnv: claudeEnv(home.dir, api.url) },
    });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    emu.admin.approvePairing(pairing.userCode);
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true, 20_000);
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await Promise.all([emu?.close(), api?.close()]);
    home?.remove();
  });

  const conversation = { seat: { id: 'seat-7', name: 'Planner' }, user_id: 'user-3', session_id: 'session-42' };

  function finished(id: string): Promise<TurnView> {
    return h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === id), 60_000).then((u) => u.finished.find((t) => t.id === id)!);
  }

  it('runs a turn whose model calls the control plane tool with the unit token', async () => {
    api.respond = callToolThenText('mcp__rost__report_progress', { message: 'reading the plan', percent: 40 }, 'FIRST TURN DONE');
    const unit = emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'CHAIN-MARKER-ONE: report progress, then finish.', ...conversation });
    const view = await finished(unit.id);
    expect(view).toMatchObject({ phase: 'succeeded', runtime: 'claude', summary: 'FIRST TURN DONE' });

    const calls = emu.admin.listMcpCalls({ unit_id: unit.id });
    expect(calls.some((c) => JSON.stringify(c).includes('reading the plan'))).toBe(true);
    await emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === unit.id, { timeoutMs: 10_000, since: 0 });
    const [result] = emu.admin.listResults({ unit_id: unit.id });
    expect(result).toMatchObject({ status: 'succeeded', runtime: 'claude-cli', summary: 'FIRST TURN DONE' });
    expect(result!.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
  }, 90_000);

  it('resumes the same conversation in the next turn', async () => {
    api.respond = replyText('SECOND TURN DONE');
    const before = api.requests.length;
    const unit = emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'CHAIN-MARKER-TWO: continue.', ...conversation });
    const view = await finished(unit.id);
    expect(view).toMatchObject({ phase: 'succeeded', summary: 'SECOND TURN DONE' });
    // The model saw the first turn's history: claude was run with --resume.
    const sent = JSON.stringify(api.requests.slice(before).map((r) => r.body));
    expect(sent).toContain('CHAIN-MARKER-ONE');
    expect(sent).toContain('CHAIN-MARKER-TWO');
  }, 90_000);
});
