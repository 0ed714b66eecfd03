import { describe, expect, it } from 'vitest';
import { capabilitiesForRuntime, chooseRuntime, type Capabilities, type RuntimePreference } from '../../../main/core/runner/capabilities';
import { readyRuntimes } from '../../../main/core/runner/runtime-readiness';

const ready = (preference: RuntimePreference, c: Capabilities) => readyRuntimes({ capabilities: c, preference });

const caps = (claude: boolean, codex: boolean): Capabilities => ({
  claude: claude ? { installed: true, version: '2.1.197', path: '/usr/bin/claude' } : { installed: false },
  codex: codex ? { installed: true, version: '0.171.0', path: '/usr/bin/codex' } : { installed: false },
});

const BRAINS = ['claude', 'codex', 'auto'] as const;
const PREFERENCES: readonly RuntimePreference[] = ['auto', 'claude', 'codex'];
const INSTALLS = [
  [true, true],
  [true, false],
  [false, true],
  [false, false],
] as const;

/** The rule, said plainly: a brain runs only on itself; auto takes claude, then codex; the setting limits both. */
function expected(brain: (typeof BRAINS)[number], preference: RuntimePreference, claude: boolean, codex: boolean): string | null {
  const allowed = { claude: claude && preference !== 'codex', codex: codex && preference !== 'claude' };
  if (brain !== 'auto') return allowed[brain] ? brain : null;
  return allowed.claude ? 'claude' : allowed.codex ? 'codex' : null;
}

describe('chooseRuntime', () => {
  const cases = BRAINS.flatMap((brain) => PREFERENCES.flatMap((pref) => INSTALLS.map(([claude, codex]) => [brain, pref, claude, codex] as const)));

  it.each(cases)('brain %s, setting %s, claude installed %s, codex installed %s', (brain, preference, claude, codex) => {
    const choice = chooseRuntime(brain, preference, ready(preference, caps(claude, codex)));
    const want = expected(brain, preference, claude, codex);
    expect(choice.ok ? choice.runtime : null).toBe(want);
  });

  it("says why a brain cannot run, in the seed's words", () => {
    expect(chooseRuntime('codex', 'claude', ready('claude', caps(true, true)))).toEqual({
      ok: false,
      reason: 'Runner runtime claude cannot execute requested codex turn.',
    });
    expect(chooseRuntime('codex', 'auto', ready('auto', caps(true, false)))).toEqual({
      ok: false,
      reason: 'Runner runtime claude cannot execute requested codex turn.',
    });
    expect(chooseRuntime('claude', 'claude', ready('claude', caps(false, true)))).toEqual({
      ok: false,
      reason: 'Runner runtime claude cannot execute requested claude turn.',
    });
    expect(chooseRuntime('auto', 'auto', ready('auto', caps(false, false)))).toEqual({
      ok: false,
      reason: 'No coding agent is available: install claude or codex, or change the runtime setting.',
    });
  });
});

describe('capabilitiesForRuntime', () => {
  it('advertises only what the setting allows, and everything installed under auto', () => {
    expect(capabilitiesForRuntime(caps(true, true), 'auto')).toEqual(caps(true, true));
    expect(capabilitiesForRuntime(caps(true, true), 'claude')).toEqual({ ...caps(true, false) });
    expect(capabilitiesForRuntime(caps(true, true), 'codex').claude).toEqual({ installed: false });
  });
});
