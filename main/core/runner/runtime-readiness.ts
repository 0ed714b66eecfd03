import { capabilitiesForRuntime, type Capabilities, type RuntimeName, type RuntimePreference } from './capabilities';

export const RUNTIME_NAMES: readonly RuntimeName[] = ['claude', 'codex'];

/** What decides whether a runtime may take work now. Add fields here (sign-in, a breaker). */
export interface ReadinessInput {
  /** The last detection, or null before the first one finished (nothing is ready yet). */
  capabilities: Capabilities | null;
  preference: RuntimePreference;
}

export interface RuntimeReadiness {
  /** Runtimes that may take work now, in preference order (claude first, as the seed's `auto`). */
  ready: RuntimeName[];
  /** For each runtime that is not ready, why, in words for a status line or a log. */
  notReady: Partial<Record<RuntimeName, string>>;
}

/**
 * THE one answer to "which runtimes can this runner run right now". Claims are made only
 * when it is non-empty, the claim tells the server its list [v1], and a unit is run only
 * with one of them. Today a runtime is ready when the operator allows it (`runtime`
 * setting) and it was detected installed with a path; readiness checks that need more
 * (signed in, a circuit breaker after repeated failures) belong in here, nowhere else.
 */
export function runtimeReadiness(input: ReadinessInput): RuntimeReadiness {
  const notReady: Partial<Record<RuntimeName, string>> = {};
  if (!input.capabilities) {
    for (const name of RUNTIME_NAMES) notReady[name] = 'not detected yet';
    return { ready: [], notReady };
  }
  const allowed = capabilitiesForRuntime(input.capabilities, input.preference);
  const ready: RuntimeName[] = [];
  for (const name of RUNTIME_NAMES) {
    if (input.preference !== 'auto' && input.preference !== name) notReady[name] = `the runtime setting is ${input.preference}`;
    else if (!allowed[name].installed || !allowed[name].path) notReady[name] = 'not installed';
    else ready.push(name);
  }
  return { ready, notReady };
}

/** Shorthand for `runtimeReadiness(input).ready`. */
export function readyRuntimes(input: ReadinessInput): RuntimeName[] {
  return runtimeReadiness(input).ready;
}

/** "claude: not installed, codex: the runtime setting is claude" — for the start line and logs. */
export function describeNotReady(readiness: RuntimeReadiness): string {
  return RUNTIME_NAMES.filter((n) => readiness.notReady[n])
    .map((n) => `${n}: ${readiness.notReady[n]}`)
    .join(', ');
}
