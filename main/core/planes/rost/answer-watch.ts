import { errorText } from '../../../../shared/errors';
import type { ControlPlaneFault } from '../../../../shared/status';
import type { RunnerConnector } from './connector';
import { isConnectorError } from '../../connectors/errors';
import type { Clock } from '../../base/ports';
import type { HeartbeatTracker } from './heartbeat-tracker';

/** How many answers in a row that do not fit the protocol make the status say so. */
export const NONSENSE_AFTER = 2;

export interface AnswerWatchDeps {
  clock: Clock;
  /** The verdict changed (the status is to be derived again). */
  onChange(): void;
}

/**
 * Whether the control plane answers sense, over every call a plane's session makes (its
 * heartbeat, a held claim or offer read, a lease heartbeat, a start or report): an answer
 * that does not fit the protocol counts wherever it arrives, so an idle runner whose only
 * request is a long-poll held for a minute still says within two of them that the plane
 * answers nonsense; any answer that fits clears it. Other failures (unreachable, 5xx, 4xx)
 * are each caller's own to report.
 */
export class AnswerWatch {
  /** Per kind of call (heartbeat, claim, …): the answers in a row that did not fit, and the last one. */
  private readonly streaks = new Map<string, { inRow: number; at: number; message: string }>();

  constructor(private readonly deps: AnswerWatchDeps) {}

  /** Runs one call to the plane and notes what its answer was. */
  async watch<T>(where: string, call: () => Promise<T>): Promise<T> {
    try {
      const value = await call();
      this.fits(where);
      return value;
    } catch (error) {
      if (isConnectorError(error, 'invalid_response')) this.nonsense(where, error);
      throw error;
    }
  }

  /** An answer to `where` fit the protocol. (A good heartbeat says nothing of what the claims get.) */
  fits(where: string): void {
    const was = this.current() !== null;
    this.streaks.delete(where);
    if (was && this.current() === null) this.deps.onChange();
  }

  nonsense(where: string, error: unknown): void {
    const inRow = (this.streaks.get(where)?.inRow ?? 0) + 1;
    this.streaks.set(where, { inRow, at: this.deps.clock.now(), message: errorText(error) });
    if (inRow === NONSENSE_AFTER) this.deps.onChange();
  }

  /** The status's offline input while the plane answers nonsense (asking again at `nextTry`), or null. */
  current(nextTry: number | null = null): { retryAt: number; message: string; fault: ControlPlaneFault } | null {
    let worst: [string, { inRow: number; at: number; message: string }] | null = null;
    for (const entry of this.streaks) if (entry[1].inRow >= NONSENSE_AFTER && (!worst || entry[1].at > worst[1].at)) worst = entry;
    if (!worst) return null;
    const [where, last] = worst;
    return {
      retryAt: Math.max(nextTry ?? 0, this.deps.clock.now()),
      fault: 'malformed',
      message: `The control plane answers nonsense: ${last.inRow} answers in a row to the ${where} do not fit the protocol (the last: ${last.message}).`,
    };
  }
}

/** What a session's status says of the plane: the heartbeat's own failure first, else nonsense answered elsewhere. */
export function planeOffline(heartbeat: HeartbeatTracker, answers: AnswerWatch): ReturnType<AnswerWatch['current']> | HeartbeatTracker['offline'] {
  return heartbeat.offline ?? answers.current(Date.parse(heartbeat.view().nextAt ?? '') || null);
}

/** The connector with every call that reads an answer of the plane watched. */
export function watchedConnector(connector: RunnerConnector, watch: AnswerWatch): RunnerConnector {
  return {
    get origin() {
      return connector.origin;
    },
    startPairing: (request) => connector.startPairing(request),
    pollPairing: (id) => connector.pollPairing(id),
    pollPairingByCode: (claim) => connector.pollPairingByCode(claim),
    unpair: (credentials) => connector.unpair(credentials),
    heartbeat: (credentials, body) => watch.watch('heartbeat', () => connector.heartbeat(credentials, body)),
    claim: (credentials, options) => watch.watch('claim', () => connector.claim(credentials, options)),
    start: (credentials, unit) => watch.watch('start call', () => connector.start(credentials, unit)),
    leaseHeartbeat: (credentials, unit, body, opts) => watch.watch('lease heartbeat', () => connector.leaseHeartbeat(credentials, unit, body, opts)),
    report: (credentials, unit, result) => watch.watch('result report', () => connector.report(credentials, unit, result)),
    ...(connector.unitTools ? { unitTools: connector.unitTools.bind(connector) } : {}),
    ...(connector.lanes ? { lanes: connector.lanes.bind(connector) } : {}),
  };
}
