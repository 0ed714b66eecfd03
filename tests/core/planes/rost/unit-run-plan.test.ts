import { describe, expect, it } from 'vitest';
import type { ClaimedWork } from '../../../../main/core/planes/rost/connector';
import type { ResumeCache } from '../../../../main/core/planes/rost/resume-cache';
import type { UnitRunDeps } from '../../../../main/core/planes/rost/unit-run-deps';
import { chooseFor, planRun } from '../../../../main/core/planes/rost/unit-run-plan';
import type { Capabilities } from '../../../../main/core/runner/capabilities';
import { checkContextPacket } from '../../../../main/core/work/prompt';

const both: Capabilities = {
  claude: { installed: true, path: '/bin/claude', version: '2.0.0' },
  codex: { installed: true, path: '/bin/codex', version: '0.1.0' },
};

function deps(patch: Partial<UnitRunDeps> = {}, resumed: Record<string, string> = {}): UnitRunDeps {
  const resume = { get: (key: string | null) => (key ? (resumed[key] ?? null) : null) } as unknown as ResumeCache;
  // planRun and chooseFor read only these; the rest of a run's deps are the run's.
  return {
    capabilities: both,
    runtimePreference: 'auto',
    tenantId: 't1',
    controlPlaneUrl: 'https://forge.example',
    knownSecrets: () => ['s3cret-token'],
    resume,
    ...patch,
  } as UnitRunDeps;
}

const unit = (patch: Partial<ClaimedWork> = {}): ClaimedWork => ({
  id: 'u1',
  kind: 'turn_execution',
  prompt: 'fix the bug',
  seat: { id: 'seat' },
  user_id: 'user',
  session_id: 'sess',
  ...patch,
});

describe("chooseFor: the unit's runtime", () => {
  it('runs an auto unit on the first ready runtime and a unit with a brain on that one', () => {
    expect(chooseFor(deps(), unit())).toEqual({ ok: true, runtime: 'claude' });
    expect(chooseFor(deps(), unit({ brain: 'auto' }))).toEqual({ ok: true, runtime: 'claude' });
    expect(chooseFor(deps(), unit({ brain: 'codex' }))).toEqual({ ok: true, runtime: 'codex' });
  });

  it('sends an auto unit past a runtime whose account is deferred, but not a unit that asked for it', () => {
    const admits = (r: 'claude' | 'codex') => r !== 'claude';
    expect(chooseFor(deps({ admits }), unit())).toEqual({ ok: true, runtime: 'codex' });
    expect(chooseFor(deps({ admits }), unit({ brain: 'claude' }))).toEqual({ ok: true, runtime: 'claude' });
    // A preference of the operator's is not overridden by the admission.
    expect(chooseFor(deps({ admits, runtimePreference: 'claude' }), unit())).toEqual({ ok: true, runtime: 'claude' });
  });

  it('skips a runtime the breaker tripped or one signed out', () => {
    expect(chooseFor(deps({ tripped: { claude: 'failing' } }), unit())).toEqual({ ok: true, runtime: 'codex' });
    const signedOut: Capabilities = { ...both, codex: { ...both.codex, signedIn: false } };
    expect(chooseFor(deps({ capabilities: signedOut }), unit({ brain: 'codex' }))).toEqual({
      ok: false,
      reason: 'Runner runtime claude cannot execute requested codex turn.',
    });
  });

  it("refuses a brain it does not know in the seed's words, clipped", () => {
    const r = chooseFor(deps(), unit({ brain: `gemini-${'x'.repeat(100)}` }));
    expect(r).toEqual({ ok: false, reason: `Runner runtime claude cannot execute requested gemini-${'x'.repeat(33)} turn.` });
  });
});

describe('planRun: what the run starts with', () => {
  const plan = (d: UnitRunDeps, u: ClaimedWork) => planRun(d, u, checkContextPacket(u.context_packet), chooseFor(d, u));

  it('plans a claude turn with its binary, resume id, MCP address on the control plane, and prompt', () => {
    const key = 't1:seat:seat:user:user:session:sess:claude';
    const p = plan(deps({}, { [key]: 'claude-session-1' }), unit({ mcp: { url: '/mcp', token: 'tok' } }));
    expect(p).toEqual({
      ok: true,
      runtime: 'claude',
      binary: '/bin/claude',
      key,
      resume: 'claude-session-1',
      mcp: { serverUrl: 'https://forge.example/mcp', token: 'tok' },
      prompt: 'fix the bug',
    });
  });

  it('keeps no resume key for codex or for a work order', () => {
    expect(plan(deps(), unit({ brain: 'codex' }))).toMatchObject({ ok: true, runtime: 'codex', key: null, resume: null, mcp: null });
    expect(plan(deps(), unit({ kind: 'work_order' }))).toMatchObject({ ok: true, runtime: 'claude', key: null });
  });

  it('fails the unit, redacted and without a runtime, when its context packet is not valid', () => {
    const p = plan(deps(), unit({ context_packet: { untrusted_sources: 's3cret-token' } }));
    expect(p.ok).toBe(false);
    if (p.ok) return;
    expect(p.failure.result).toMatchObject({ status: 'failed', idempotency_key: 'u1:1', log_ref: 'runner-local:u1' });
    expect(p.failure.result?.summary).toMatch(/^invalid Forge context packet/);
    expect(p.failure.result?.summary).not.toContain('s3cret-token');
    expect(p.failure.result).not.toHaveProperty('runtime');
  });

  it('fails the unit when no runtime can run it', () => {
    const none: Capabilities = { claude: { installed: false }, codex: { installed: false } };
    const p = plan(deps({ capabilities: none }), unit());
    expect(p).toMatchObject({ ok: false, failure: { result: { status: 'failed', summary: expect.stringMatching(/^No coding agent is available/) } } });
  });

  it('refuses an MCP URL off the control plane, naming the runtime it would have run', () => {
    const p = plan(deps(), unit({ mcp: { url: 'https://elsewhere.example/mcp', token: 'tok' } }));
    expect(p).toMatchObject({ ok: false, failure: { result: { runtime: 'claude-cli' } } });
    if (p.ok) return;
    expect(p.failure.result?.summary).toMatch(/^The unit's MCP URL was refused: the MCP URL https:\/\/elsewhere\.example is not on the control plane/);
  });

  it('fails a unit whose chosen runtime has no path', () => {
    const noPath: Capabilities = { ...both, claude: { installed: true } };
    const d = deps({ capabilities: noPath });
    const p = planRun(d, unit(), checkContextPacket(undefined), { ok: true, runtime: 'claude' });
    expect(p).toMatchObject({ ok: false, failure: { result: { summary: 'claude is not installed on this machine.', runtime: 'claude-cli' } } });
  });
});
