import type { PairingState } from '../../../../shared/runner';
import type { PairingStartResponse } from '../../../../shared/protocol/pairing';
import type { PairingPoll, RunnerConnector } from '../../../../main/core/planes/rost/connector';
import { ConnectorError } from '../../../../main/core/connectors/errors';
import { PairingFlow } from '../../../../main/core/planes/rost/pairing-flow';
import { FakeClock } from '../../../helpers/fake-clock';
import { testLogging } from '../../../helpers/test-logger';

export const PAIRING_STARTED = {
  pairing_id: 'p1',
  user_code: 'BCDF-GHJK',
  verification_uri: 'http://cp/device',
  verification_uri_complete: 'http://cp/device?code=BCDF-GHJK',
  expires_in: 600,
  interval: 5,
};

/**
 * A pairing flow on a fake clock whose connector answers from lists: each start from
 * `starts` ('ok': the code in `started`), each poll from `polls` (pending once they run
 * out); an error in a list is thrown. Times are seconds from the fixture's start.
 */
export function pairingFixture(
  options: {
    starts?: (ConnectorError | 'ok')[];
    polls?: (PairingPoll | ConnectorError)[];
    started?: Partial<PairingStartResponse>;
    approve?: () => Promise<{ runnerName: string }>;
  } = {},
) {
  const clock = new FakeClock();
  const states: PairingState[] = [];
  const startTimes: number[] = [];
  const pollTimes: number[] = [];
  const t0 = clock.now();
  const starts = options.starts ?? [];
  const polls = options.polls ?? [];
  const connector = {
    startPairing: async () => {
      startTimes.push((clock.now() - t0) / 1000);
      const step = starts.shift() ?? 'ok';
      if (step !== 'ok') throw step;
      return { ...PAIRING_STARTED, ...options.started } as PairingStartResponse;
    },
    pollPairing: async () => {
      pollTimes.push((clock.now() - t0) / 1000);
      const step = polls.shift() ?? { kind: 'pending' };
      if (step instanceof ConnectorError) throw step;
      return step;
    },
  } as unknown as RunnerConnector;
  const flow = new PairingFlow({
    connector,
    clock,
    log: testLogging().log,
    random: () => 0.5,
    onState: (s) => states.push(s),
    onApproved: options.approve ?? (async () => ({ runnerName: 'box' })),
  });
  return { clock, flow, states, startTimes, pollTimes, t0 };
}
