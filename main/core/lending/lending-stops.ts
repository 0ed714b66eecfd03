// With lendStopsRunningTurns on, a lending hold also cancels the running turns, through the
// same cancel path a quit's "cancel the running turns" takes. Off (the default): they finish.
import type { Logger } from '../base/ports';
import type { LendingGate } from './lending-gate';

export interface LendingStopsDeps {
  gate: Pick<LendingGate, 'holds' | 'onChange'>;
  stopsRunningTurns(): boolean;
  /** Cancels every running turn of every profile; answers how many. */
  cancelAll(reason: string): number;
  log: Logger;
}

/** Cancels the running turns each time a hold begins (or another term takes over), while the setting is on. */
export function stopTurnsOnHold(deps: LendingStopsDeps): () => void {
  let last: string | null = null;
  return deps.gate.onChange(() => {
    const first = deps.gate.holds()[0] ?? null;
    const key = first ? first.kind : null;
    const began = key !== null && key !== last;
    last = key;
    if (!began || !deps.stopsRunningTurns()) return;
    const canceled = deps.cancelAll(`lending terms: ${first!.reason}`);
    if (canceled > 0) deps.log.info('a lending term canceled the running turns', { canceled, term: key });
  });
}
