import { describe, expect, it } from 'vitest';
import type { FetchLike } from '../../../../main/core/connectors/http-json';
import { RostRunnerConnector } from '../../../../main/core/planes/rost/rost-runner-connector';
import { HeartbeatTracker } from '../../../../main/core/planes/rost/heartbeat-tracker';
import { deriveStatus } from '../../../../main/core/planes/rost/runner-status';
import { AnswerWatch, planeOffline, watchedConnector } from '../../../../main/core/planes/rost/answer-watch';
import { ClaimLoop } from '../../../../main/core/sessions/claim-loop';
import { MachineSlots } from '../../../../main/core/sessions/machine-slots';
import { statusLine } from '../../../../shared/status';
import { FakeClock } from '../../../helpers/fake-clock';
import { testLogging } from '../../../helpers/test-logger';

const LONG_POLL_MS = 60_000;

/**
 * A Rost plane whose heartbeat answers well while its held claims answer garbage after each
 * long-poll (a body that does not fit the protocol), on a fake clock; `sense()` mends the claims.
 */
function plane(clock: FakeClock) {
  let garbage = true;
  let claims = 0;
  const json = (body: unknown) => ({ status: 200, text: async () => JSON.stringify(body) });
  const fetch: FetchLike = async (url, init) => {
    const path = new URL(url).pathname;
    if (path === '/api/runner/heartbeat') {
      return json({ runner_id: 'r1', server_time: new Date(clock.now()).toISOString(), next_heartbeat_ms: 30_000, claim: { long_poll_max_ms: LONG_POLL_MS } });
    }
    if (path === '/api/runner/work-orders/claim') {
      claims++;
      const body = JSON.parse(init.body as string) as { wait_ms?: number };
      await new Promise<void>((resolve, reject) => {
        clock.setTimeout(resolve, body.wait_ms ?? 0);
        init.signal?.addEventListener('abort', () => reject(new Error('aborted')));
      });
      return garbage ? json({ turn_execution: 'not a unit' }) : { status: 204, text: async () => '' };
    }
    throw new Error(`unexpected ${path}`);
  };
  return { fetch, claims: () => claims, sense: () => (garbage = false) };
}

describe('a control plane that answers nonsense to the held claims', () => {
  it('shows in the status within two long-polls, though the heartbeat is fine, and clears when the answers fit again', async () => {
    const clock = new FakeClock(0);
    const log = testLogging().log;
    const fake = plane(clock);
    let changes = 0;
    const answers = new AnswerWatch({ clock, onChange: () => changes++ });
    const connector = watchedConnector(new RostRunnerConnector({ baseUrl: 'http://127.0.0.1:9', fetch: fake.fetch }), answers);
    const credentials = { runnerId: 'r1', secret: 'secret-of-the-runner' };
    const heartbeat = new HeartbeatTracker({
      clock,
      log,
      random: () => 0.5,
      heartbeatMs: () => 30_000,
      credentials: () => credentials,
      body: async () => ({ name: 'box' }),
      onRevoked: () => undefined,
      onChange: () => changes++,
      onBeat: () => loop.heartbeat(),
    });
    const loop = new ClaimLoop({
      clock,
      log,
      random: () => 0.5,
      profile: 'p',
      machine: new MachineSlots(() => 1),
      maxSessions: () => 1,
      blocked: () => null,
      longPollMaxMs: () => heartbeat.longPoll,
      interactiveClaimMs: () => 5_000,
      claim: (options) => connector.claim(credentials, options),
      launch: async () => undefined,
      revoked: () => undefined,
    });
    const status = () =>
      deriveStatus({
        paired: true,
        pairing: null,
        revoked: false,
        problem: null,
        offline: planeOffline(heartbeat, answers),
        paused: null,
        draining: false,
        active: 0,
        max: 1,
        connected: heartbeat.connected,
      });
    heartbeat.start(connector);
    loop.start();
    await clock.advanceAsync(0);
    expect(status()).toMatchObject({ state: 'idle', reason: 'Connected and waiting for work.' });

    // Two long-polls (and the backoff after the first) later the window says what is wrong.
    const before = changes;
    for (let t = 0; t < 2 * LONG_POLL_MS + 2_000 && fake.claims() < 3; t += 500) await clock.advanceAsync(500);
    expect(fake.claims()).toBe(3);
    expect(heartbeat.offline).toBeNull();
    expect(status()).toMatchObject({ state: 'offline', fault: 'malformed' });
    expect(status().reason).toMatch(/^The control plane answers nonsense: 2 answers in a row to the claim do not fit the protocol/);
    expect(statusLine(status(), clock.now())).toMatch(/^Control plane answers nonsense/);
    expect(changes).toBeGreaterThan(before);

    fake.sense();
    for (let t = 0; t < 2 * LONG_POLL_MS && status().state !== 'idle'; t += 500) await clock.advanceAsync(500);
    expect(status()).toMatchObject({ state: 'idle', reason: 'Connected and waiting for work.' });
    await loop.stop();
    heartbeat.stop();
  });
});
