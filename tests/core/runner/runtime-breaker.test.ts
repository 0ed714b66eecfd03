import { describe, expect, it } from 'vitest';
import { capabilitiesForRuntime, chooseRuntime, noReadyRuntime, runtimeReady, type Capabilities } from '../../../main/core/runner/capabilities';
import { readyRuntimes } from '../../../main/core/runner/runtime-readiness';
import { RuntimeBreaker } from '../../../main/core/runner/runtime-breaker';

const quick = (at: number, reason = 'exit 3: boom') => ({ startedAt: at, endedAt: at + 500, failed: true, reason });

describe('the runtime circuit breaker', () => {
  it('trips on the third quick failure for the same reason, once, and names the reason', () => {
    const breaker = new RuntimeBreaker();
    expect(breaker.record('claude', quick(0))).toBeNull();
    expect(breaker.record('claude', quick(1_000, 'exit 4: boom'))).toBeNull();
    const trip = breaker.record('claude', quick(2_000));
    expect(trip).toMatch(/^Claude Code: claiming paused after 3 turns failed within a minute of starting \(exit 3: boom\)/);
    expect(breaker.state.claude).toBeDefined();
    expect(breaker.record('claude', quick(3_000))).toBeNull();
    expect(breaker.state.codex).toBeUndefined();
  });

  it('does not trip on slow failures, mixed reasons, failures spread over more than a minute, or after a success', () => {
    const breaker = new RuntimeBreaker();
    for (let i = 0; i < 5; i++) breaker.record('codex', { startedAt: i * 100_000, endedAt: i * 100_000 + 61_000, failed: true, reason: 'x' });
    breaker.record('claude', quick(0, 'a'));
    breaker.record('claude', quick(1, 'b'));
    breaker.record('claude', quick(2, 'a'));
    breaker.record('claude', quick(3, 'a'));
    breaker.record('claude', { startedAt: 4, endedAt: 5, failed: false, reason: null });
    breaker.record('claude', quick(6, 'a'));
    breaker.record('claude', quick(70_000, 'a'));
    breaker.record('claude', quick(140_000, 'a'));
    expect(breaker.state).toEqual({});
  });

  it('a reset closes it', () => {
    const breaker = new RuntimeBreaker({ failures: 1 });
    breaker.record('claude', quick(0));
    expect(breaker.reset()).toBe(true);
    expect(breaker.state).toEqual({});
  });
});

describe('runtime readiness (the one predicate)', () => {
  const caps: Capabilities = {
    claude: { installed: true, version: '2.1.197', path: '/bin/claude', signedIn: false, problem: 'installed, not signed in — run `claude` and sign in' },
    codex: { installed: true, version: '0.171.0', path: '/bin/codex' },
  };

  it('installed but signed out, or tripped, is not ready; the heartbeat advertises it as not installed', () => {
    expect(runtimeReady('claude', caps.claude)).toEqual({ ready: false, reason: 'Claude Code: installed, not signed in — run `claude` and sign in' });
    expect(runtimeReady('codex', caps.codex)).toEqual({ ready: true });
    expect(runtimeReady('codex', caps.codex, { codex: 'claiming paused' })).toEqual({ ready: false, reason: 'Codex: claiming paused' });
    expect(capabilitiesForRuntime(caps, 'auto')).toEqual({ claude: { installed: false, version: '2.1.197', path: '/bin/claude' }, codex: caps.codex });
    expect(capabilitiesForRuntime(caps, 'claude').codex).toEqual({ installed: false });
  });

  it('auto picks the ready runtime; a unit that needs the signed-out one says why; no ready runtime says why', () => {
    expect(chooseRuntime('auto', 'auto', readyRuntimes({ capabilities: caps, preference: 'auto' }))).toEqual({ ok: true, runtime: 'codex' });
    expect(chooseRuntime('claude', 'auto', readyRuntimes({ capabilities: caps, preference: 'auto' }))).toEqual({
      ok: false,
      reason: 'Runner runtime codex cannot execute requested claude turn.',
    });
    expect(readyRuntimes({ capabilities: caps, preference: 'auto', tripped: { codex: 'claiming paused' } })).toEqual([]);
    expect(noReadyRuntime(caps, 'auto')).toBeNull();
    expect(noReadyRuntime(caps, 'claude')).toBe('Claude Code: installed, not signed in — run `claude` and sign in');
  });

  it('says why when none of the allowed runtimes is installed at all (not a null that reads as a green Idle)', () => {
    const none: Capabilities = { claude: { installed: false }, codex: { installed: false } };
    expect(noReadyRuntime(none, 'auto')).toBe('neither Claude Code nor Codex is installed on this machine');
    expect(noReadyRuntime(none, 'codex')).toBe('Codex is not installed on this machine');
    expect(noReadyRuntime(null, 'auto')).toBeNull();
  });
});
