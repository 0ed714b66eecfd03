import { describe, expect, it } from 'vitest';
import { admittedCapabilities } from '../../../main/core/work/claim-admission';

type Runtime = 'claude' | 'codex';
const caps = (claude: boolean, codex: boolean) => ({
  claude: { installed: claude, version: 'c-1' },
  codex: { installed: codex, version: 'x-1' },
  git: { installed: true },
});
const admitting =
  (...ok: Runtime[]) =>
  (r: Runtime) =>
    ok.includes(r);

describe('admittedCapabilities: what an auto unit may choose from', () => {
  it('leaves out a deferred runtime while another installed one is admitted, keeping the rest of its entry', () => {
    const input = caps(true, true);
    expect(admittedCapabilities(input, admitting('codex'))).toEqual({
      claude: { installed: false, version: 'c-1' },
      codex: { installed: true, version: 'x-1' },
      git: { installed: true },
    });
    expect(admittedCapabilities(input, admitting('claude')).codex.installed).toBe(false);
    // The capabilities handed in are not changed.
    expect(input).toEqual(caps(true, true));
  });

  it('changes nothing when every installed runtime is admitted', () => {
    expect(admittedCapabilities(caps(true, true), admitting('claude', 'codex'))).toEqual(caps(true, true));
    expect(admittedCapabilities(caps(true, false), admitting('claude'))).toEqual(caps(true, false));
  });

  it('changes nothing when no installed runtime is admitted, so the executor reports the deferral', () => {
    const input = caps(true, true);
    expect(admittedCapabilities(input, admitting())).toBe(input);
    // Codex is admitted but not installed: nothing usable, nothing changes.
    expect(admittedCapabilities(caps(true, false), admitting('codex'))).toEqual(caps(true, false));
    expect(admittedCapabilities(caps(false, false), admitting('claude', 'codex'))).toEqual(caps(false, false));
  });
});
