import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { UNTRUSTED_INPUT_POLICY } from '../../shared/protocol';
import type { PairingState } from '../../shared/runner';
import { twoBeats, finished, startHarness, type Harness } from './core-harness';

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));
const MISSING = fileURLToPath(new URL('../fixtures/no-such-runtime', import.meta.url));

let h: Harness | null = null;
let other: Harness | null = null;
afterEach(async () => {
  await other?.close();
  await h?.close();
  h = other = null;
});

async function pairedHarness(
  options: { settings?: Record<string, unknown>; binaries?: { claude: string; codex: string }; emu?: Harness['emu'] } = {},
): Promise<Harness> {
  const harness = await startHarness({
    settings: { maxSessions: 2, ...options.settings },
    ...(options.emu
      ? { emu: options.emu }
      : { emulator: { config: { leaseHeartbeatMs: 200, longPollMaxMs: 1_000, caps: { tenant: 8, project: 8, defaultAccount: 8 } } } }),
    core: { runtimeBinaries: options.binaries ?? { claude: FAKE, codex: FAKE } },
  });
  const pairing = await harness.invoke<PairingState>('pairing:start');
  if (pairing.phase !== 'waiting') throw new Error('not waiting');
  harness.emu.admin.approvePairing(pairing.userCode);
  await harness.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null && s.runtimes !== null);
  return harness;
}

describe('claiming only what this machine can run', () => {
  it('claims nothing without a ready runtime: the unit stays queued, and another runner takes it', async () => {
    h = await pairedHarness({ binaries: { claude: MISSING, codex: MISSING } });
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'auto', prompt: 'fake:json' });
    await twoBeats(h);
    expect(h.emu.admin.listEvents({ type: 'claim.held', limit: 100 })).toEqual([]);
    expect(h.emu.admin.getUnit(unit.id)?.status).toBe('queued');
    // And the window says so: an amber idle that names why, not a green one.
    const { status } = await h.invoke<{ status: { state: string; held?: string; reason: string } }>('runner:snapshot');
    expect(status).toMatchObject({ state: 'idle', held: 'neither Claude Code nor Codex is installed on this machine' });
    expect(status.reason).toBe('Not taking work: neither Claude Code nor Codex is installed on this machine.');

    other = await pairedHarness({ emu: h.emu });
    expect((await finished(other, unit.id)).phase).toBe('succeeded');
  });

  it('a codex-only runner never takes a claude unit; a claude-capable runner does', async () => {
    h = await pairedHarness({ settings: { runtime: 'codex' } });
    const claudeUnit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
    const codexUnit = h.emu.admin.enqueueTurnExecution({ brain: 'codex', prompt: 'fake:jsonl' });
    expect((await finished(h, codexUnit.id)).runtime).toBe('codex');
    await twoBeats(h);
    expect(h.emu.admin.getUnit(claudeUnit.id)?.status).toBe('queued');
    other = await pairedHarness({ emu: h.emu, settings: { runtime: 'claude' } });
    expect((await finished(other, claudeUnit.id)).runtime).toBe('claude');
  });

  it('heartbeat-only ("Run work on this machine" off) claims nothing, and claims again when turned on', async () => {
    h = await pairedHarness({ settings: { runWork: false } });
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
    await twoBeats(h);
    expect(h.emu.admin.getUnit(unit.id)?.status).toBe('queued');
    expect(h.core.runner.status()).toMatchObject({ state: 'idle', reason: 'Heartbeat only: this machine takes no work ("Run work on this machine" is off).' });
    // The overrides pin it for the harness; a stored change is what the Settings view makes.
    await h.restart({ overrides: { controlPlaneUrl: h.emu.url, secretBackend: 'file', heartbeatMs: 1000, maxSessions: 2, runWork: true } });
    expect((await finished(h, unit.id)).phase).toBe('succeeded');
  });
});

describe('tolerant packets and refused starts', () => {
  it('runs a unit whose packet has a phase and an automation mode this client does not know', async () => {
    h = await pairedHarness();
    const uuid = () => crypto.randomUUID();
    const unit = h.emu.admin.enqueueTurnExecution({
      brain: 'claude',
      prompt: 'fake:json',
      context_packet: {
        schema_version: 1,
        phase_run_id: uuid(),
        build_request_id: uuid(),
        software_project_id: uuid(),
        phase: 'security_review',
        request_status: 'in_progress',
        project: { slug: 'acme', status: 'active' },
        scheduler: {
          lease_model: 'work_order_claim_heartbeat',
          runner_id: uuid(),
          max_runner_sessions: 2,
          model_account_state: 'unknown',
          account_alias: null,
        },
        trusted_control: { source: 'rost_server_state', automation_mode: 'autopilot_with_guardrails', inferred_risk: 'low' },
        untrusted_sources: [],
        authority_profiles: [],
        secret_metadata: null,
        config_metadata: {},
        untrusted_input_policy: UNTRUSTED_INPUT_POLICY,
      },
    });
    expect((await finished(h, unit.id)).phase).toBe('succeeded');
  });

  it('logs a refused start as the seed does and reports no result for it', async () => {
    h = await pairedHarness();
    h.emu.admin.addFault({ route: '/api/runner/turn-executions/*/start', error: { rate: 1, status: 409, body: { error: 'lease_lost' } }, remaining: 1 });
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
    const view = await finished(h, unit.id);
    expect(view).toMatchObject({ phase: 'failed', reason: 'Turn execution start failed 409: {"error":"lease_lost"}' });
    await twoBeats(h);
    // Nothing was reported for the refused attempt (the server may hand the unit out again later).
    expect(h.emu.admin.listResults({ unit_id: unit.id }).filter((r) => r.status === 'failed')).toEqual([]);
  });
});
