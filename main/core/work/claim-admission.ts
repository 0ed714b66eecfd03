/**
 * The seam through which usage limits gate claiming: the work manager claims only while
 * `allowsClaim()` says yes, and looks again whenever the admission changes (a reset
 * instant passed, a probe answered, a turn reported a limit).
 */
export interface ClaimAdmission {
  allowsClaim(): boolean;
  /** Whether a unit may run with this runtime now (a unit without a brain of its own avoids one that may not). */
  admits(runtime: 'claude' | 'codex'): boolean;
  onChange(listener: () => void): () => void;
}

/**
 * The capabilities an `auto` unit chooses from: runtimes whose account is deferred are left
 * out while another installed one is admitted (otherwise nothing changes, and the executor
 * reports the deferral).
 */
export function admittedCapabilities<C extends Record<'claude' | 'codex', { installed: boolean }>>(
  capabilities: C,
  admits: (runtime: 'claude' | 'codex') => boolean,
): C {
  const usable = (['claude', 'codex'] as const).filter((r) => capabilities[r].installed && admits(r));
  if (usable.length === 0) return capabilities;
  const out = { ...capabilities };
  for (const r of ['claude', 'codex'] as const) if (capabilities[r].installed && !admits(r)) out[r] = { ...capabilities[r], installed: false };
  return out;
}

/** Claims only while every admission allows (usage limits and the lending terms); a change of any is a change. */
export function allAdmit(...admissions: readonly ClaimAdmission[]): ClaimAdmission {
  return {
    allowsClaim: () => admissions.every((a) => a.allowsClaim()),
    admits: (runtime) => admissions.every((a) => a.admits(runtime)),
    onChange: (listener) => {
      const offs = admissions.map((a) => a.onChange(listener));
      return () => offs.forEach((off) => off());
    },
  };
}
