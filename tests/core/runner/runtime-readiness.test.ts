import { describe, expect, it } from 'vitest';
import { chooseRuntime } from '../../../main/core/runner/capabilities';
import { describeNotReady, readyRuntimes, runtimeReadiness } from '../../../main/core/runner/runtime-readiness';

const both = { claude: { installed: true, path: '/bin/claude' }, codex: { installed: true, path: '/bin/codex' } };

describe('runtimeReadiness: the one answer to "which runtimes can this runner run"', () => {
  it('nothing is ready before the first detection', () => {
    const r = runtimeReadiness({ capabilities: null, preference: 'auto' });
    expect(r.ready).toEqual([]);
    expect(describeNotReady(r)).toBe('claude: not detected yet, codex: not detected yet');
  });

  it('ready = detected installed with a path, and allowed by the runtime setting; claude first', () => {
    expect(readyRuntimes({ capabilities: both, preference: 'auto' })).toEqual(['claude', 'codex']);
    expect(readyRuntimes({ capabilities: both, preference: 'codex' })).toEqual(['codex']);
    const broken = { claude: { installed: false, path: '/bin/claude' }, codex: { installed: true } };
    const r = runtimeReadiness({ capabilities: broken, preference: 'auto' });
    expect(r.ready).toEqual([]);
    expect(describeNotReady(r)).toBe('claude: not installed, codex: not installed');
    expect(describeNotReady(runtimeReadiness({ capabilities: both, preference: 'claude' }))).toBe('codex: the runtime setting is claude');
  });

  it('a unit runs only with a ready runtime, else the seed says why', () => {
    expect(chooseRuntime('auto', 'auto', ['codex'])).toEqual({ ok: true, runtime: 'codex' });
    expect(chooseRuntime('claude', 'auto', ['claude', 'codex'])).toEqual({ ok: true, runtime: 'claude' });
    expect(chooseRuntime('claude', 'codex', ['codex'])).toEqual({ ok: false, reason: 'Runner runtime codex cannot execute requested claude turn.' });
    expect(chooseRuntime('auto', 'auto', [])).toMatchObject({ ok: false });
  });
});
