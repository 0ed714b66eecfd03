/**
 * The Rost session's claim loop: the deps it claims through (the current identity's connector, the
 * claimable runtimes, the heartbeat carried on a held long-poll where the plane offers it), the launch of a
 * claimed unit, and the choice between the adaptive loop and the seed CLI's serial cadence.
 */
import { effectiveCadence } from '../../../../shared/settings';
import type { ClaimOptions } from './connector';
import type { UnitLauncher } from './unit-launcher';
import { ClaimLoop, type ClaimStrategy } from '../../sessions/claim-loop';
import { SerialClaimLoop } from './serial-claim-loop';
import { CancelNoticeRoute } from './cancel-notices';
import type { RostSessionDeps, SessionHooks, SessionParts } from './rost-session-deps';

export function claimLoop(deps: RostSessionDeps, hooks: SessionHooks, get: () => SessionParts): ClaimStrategy {
  const log = deps.log;
  const notices = new CancelNoticeRoute({
    clock: deps.clock,
    log: log.child('cancel-notices'),
    heartbeat: () => get().heartbeat,
    launcher: () => get().launcher,
    target: () => get().identityKeeper.current,
    revoked: () => void get().identityKeeper.markRevoked(),
  });
  const loopDeps = {
    clock: deps.clock,
    log: log.child('claim'),
    ...(deps.random ? { random: deps.random } : {}),
    profile: deps.profile.id,
    machine: deps.machine,
    maxSessions: () => deps.settings().maxSessions,
    blocked: () => hooks.blocked(),
    longPollMaxMs: () => get().heartbeat.longPoll,
    interactiveClaimMs: () => effectiveCadence(deps.settings()).interactiveClaimMs,
    claim: async (options: { interactiveOnly: boolean; waitMs?: number; signal?: AbortSignal }) => {
      const { identityKeeper, runtimes: gate, heartbeat, storage } = get();
      const target = identityKeeper.current;
      const runtimes = gate.claimable();
      // Nothing is claimed that could not be run: the journal, the outbox and the turn folders must take a write.
      if (!target || runtimes.length === 0 || !(await storage.check())) return null;
      // [v1] Where offered, the held claim also hears the plane cancel a running unit.
      const heard = notices.onClaim(options.waitMs);
      const claim = (carried?: ClaimOptions['heartbeat']) =>
        target.connector.claim(target.credentials, { ...options, runtimes, ...(carried ? { heartbeat: carried } : {}), ...(heard ? { notices: heard } : {}) });
      // [v1] Where offered, the held claim carries the heartbeat: one request per long-poll while idle.
      const asked = deps.clock.now();
      const unit = options.waitMs !== undefined && heartbeat.carriesHeartbeat ? await heartbeat.carrying(claim) : await claim();
      // claimMs: from the claim request to the unit received (the headless host's claim latency metric).
      if (unit) log.info('claimed a unit', { unit: unit.id, kind: unit.kind, brain: unit.brain ?? 'auto', claimMs: deps.clock.now() - asked });
      return unit;
    },
    launch: async (unit: Parameters<UnitLauncher['launch']>[0], slotFree?: () => void) => {
      await get().launcher.launch(unit, slotFree);
    },
    revoked: () => void get().identityKeeper.markRevoked(),
    watchNotices: (signal: AbortSignal) => notices.watch(signal),
  };
  return deps.strategy === 'seed' ? new SerialClaimLoop(loopDeps) : new ClaimLoop(loopDeps);
}
