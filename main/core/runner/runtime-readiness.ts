import type { RuntimeId } from '../../../shared/runtimes';
import { RUNTIME_IDS } from '../../../shared/runtimes';
import { runtimeReady, type Capabilities, type RuntimePreference, type TrippedRuntimes } from './capabilities';

/** What decides whether a runtime may take work now. Add fields here (sign-in, a breaker). */
export interface ReadinessInput {
  /** The last detection, or null before the first one finished (nothing is ready yet). */
  capabilities: Capabilities | null;
  preference: RuntimePreference;
  /** Runtimes the circuit breaker has paused, with its reason. */
  tripped?: TrippedRuntimes | undefined;
}

export interface RuntimeReadiness {
  /** Runtimes that may take work now, in preference order (claude first, as the seed's `auto`). */
  ready: RuntimeId[];
  /** For each runtime that is not ready, why, in words for a status line or a log. */
  notReady: Partial<Record<RuntimeId, string>>;
}

/**
 * THE one answer to "which runtimes can this runner run right now". Claims are made only
 * when it is non-empty, the claim tells the server its list [v1], and a unit is run only
 * with one of them. A runtime is ready when the operator allows it (`runtime` setting),
 * it was detected installed with a path, it is not known to be signed out, and the
 * circuit breaker has not paused it (`runtimeReady`). Nothing else decides it.
 */
export function runtimeReadiness(input: ReadinessInput): RuntimeReadiness {
  const notReady: Partial<Record<RuntimeId, string>> = {};
  if (!input.capabilities) {
    for (const name of RUNTIME_IDS) notReady[name] = 'not detected yet';
    return { ready: [], notReady };
  }
  const ready: RuntimeId[] = [];
  for (const name of RUNTIME_IDS) {
    const capability = input.capabilities[name];
    const check = runtimeReady(name, capability, input.tripped ?? {});
    if (input.preference !== 'auto' && input.preference !== name) notReady[name] = `the runtime setting is ${input.preference}`;
    else if (!capability.installed || !capability.path) notReady[name] = 'not installed';
    else if (!check.ready) notReady[name] = check.reason;
    else ready.push(name);
  }
  return { ready, notReady };
}

/** Shorthand for `runtimeReadiness(input).ready`. */
export function readyRuntimes(input: ReadinessInput): RuntimeId[] {
  return runtimeReadiness(input).ready;
}

/** "claude: not installed, codex: the runtime setting is claude" — for the start line and logs. */
export function describeNotReady(readiness: RuntimeReadiness): string {
  return RUNTIME_IDS.filter((n) => readiness.notReady[n])
    .map((n) => `${n}: ${readiness.notReady[n]}`)
    .join(', ');
}
