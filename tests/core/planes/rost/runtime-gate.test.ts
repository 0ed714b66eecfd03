import { describe, expect, it } from 'vitest';
import { defaultSettings, type Settings } from '../../../../shared/settings';
import type { CommandRunner } from '../../../../main/core/exec/process-runner';
import { RuntimeGate } from '../../../../main/core/planes/rost/runtime-gate';
import { CapabilityDetector } from '../../../../main/core/runner/capabilities';
import { RuntimeBreaker } from '../../../../main/core/runner/runtime-breaker';
import { FakeClock } from '../../../helpers/fake-clock';
import { testLogging } from '../../../helpers/test-logger';

/** A machine with the given CLIs on PATH; `signedOut` ones say so to their auth check. */
function machine(installed: ('claude' | 'codex')[], signedOut: ('claude' | 'codex')[] = []): CommandRunner {
  return {
    which: async (name) => (installed.includes(name as 'claude') ? `/usr/bin/${name}` : null),
    run: async (cmd, args) => {
      const name = path(cmd);
      if (args[0] === '--version') return { code: 0, stdout: '1.0.0', stderr: '' };
      if (name === 'claude') return { code: 0, stdout: JSON.stringify({ loggedIn: !signedOut.includes('claude') }), stderr: '' };
      return signedOut.includes('codex') ? { code: 1, stdout: 'Not logged in', stderr: '' } : { code: 0, stdout: 'Logged in', stderr: '' };
    },
  };
}
const path = (cmd: string) => cmd.slice(cmd.lastIndexOf('/') + 1);

async function gate(runner: CommandRunner | null, settings: Partial<Settings> = {}) {
  const capabilities = new CapabilityDetector(runner ?? machine([]), new FakeClock());
  if (runner) await capabilities.refresh();
  const breaker = new RuntimeBreaker({ failures: 1 });
  const logging = testLogging();
  let current: Settings = { ...defaultSettings('box'), ...settings };
  return {
    gate: new RuntimeGate(capabilities, breaker, () => current, logging.log),
    breaker,
    set: (patch: Partial<Settings>) => (current = { ...current, ...patch }),
    infos: () => logging.entries.filter((e) => e.level === 'info').map((e) => [e.msg, e.data]),
  };
}

const trip = (breaker: RuntimeBreaker, runtime: 'claude' | 'codex') => breaker.record(runtime, { startedAt: 0, endedAt: 1, failed: true, reason: 'exit 1' });

describe('RuntimeGate: which runtimes a profile may claim for', () => {
  it('claims for every ready runtime the setting allows, claude first', async () => {
    const t = await gate(machine(['claude', 'codex']));
    expect(t.gate.claimable()).toEqual(['claude', 'codex']);
    t.set({ runtime: 'codex' });
    expect(t.gate.claimable()).toEqual(['codex']);
    expect(t.gate.notReady()).toBeNull();
  });

  it('claims nothing in heartbeat-only mode or before the first detection, and says why once per change', async () => {
    const t = await gate(machine(['claude']), { runWork: false });
    expect(t.gate.claimable()).toEqual([]);
    expect(t.gate.claimable()).toEqual([]);
    t.set({ runWork: true });
    expect(t.gate.claimable()).toEqual(['claude']);
    expect(t.infos()).toEqual([
      ['claiming nothing', { reason: 'heartbeat-only mode: "Run work on this machine" is off' }],
      ['claiming work again', { runtimes: 'claude' }],
    ]);
    const early = await gate(null);
    expect(early.gate.claimable()).toEqual([]);
    expect(early.infos()).toEqual([['claiming nothing', { reason: 'no runtime is ready (claude: not detected yet, codex: not detected yet)' }]]);
    expect(early.gate.notReady()).toBeNull();
    expect(early.gate.view()).toBeNull();
  });

  it('withholds a signed-out or tripped runtime and says why none is ready', async () => {
    const t = await gate(machine(['claude', 'codex'], ['codex']));
    expect(t.gate.claimable()).toEqual(['claude']);
    trip(t.breaker, 'claude');
    expect(t.gate.claimable()).toEqual([]);
    const reason = t.gate.notReady();
    expect(reason).toMatch(/^Claude Code: claiming paused after 1 turns failed/);
    expect(reason).toContain('Codex: installed, not signed in');
    expect(t.infos().at(-1)?.[0]).toBe('claiming nothing');
  });

  it("shows each runtime's readiness and the problem of one installed but not ready", async () => {
    const t = await gate(machine(['claude', 'codex'], ['codex']));
    trip(t.breaker, 'claude');
    const view = t.gate.view();
    expect(view?.claude).toMatchObject({ installed: true, ready: false, problem: expect.stringMatching(/^claiming paused/) });
    expect(view?.codex).toMatchObject({ installed: true, ready: false, problem: 'installed, not signed in — run `codex login`' });
    const bare = await gate(machine(['claude']));
    // A runtime that is not installed shows no problem, even one the breaker remembers.
    trip(bare.breaker, 'codex');
    expect(bare.gate.view()).toEqual({
      claude: { installed: true, path: '/usr/bin/claude', version: '1.0.0', signedIn: true, ready: true },
      codex: { installed: false, ready: false },
    });
  });
});
