import type { HostEvent } from '../../shared/contract';
import type { RunnerSnapshot } from '../../shared/runner';
import type { SettingKey } from '../../shared/settings';
import type { Core } from '../core/bootstrap';
import { capabilitiesForRuntime, runtimeReady } from '../core/runner/capabilities';
import { describeNotReady, runtimeReadiness } from '../core/runner/runtime-readiness';

type Out = { write(text: string): unknown };
export type BeatOutcome = { ok: true } | { ok: false; reason: string };

/**
 * The lines `rost runner serve` prints for log scrapers, word for word [seed]:
 * `heartbeat ok #<n> runner_id=<id> claude=<bool> codex=<bool>` after every heartbeat that
 * went through (n counts from 1), and `paired runner_id=<id> state_file=<path>` once a
 * pairing is approved. `state_file` is where this host keeps the identity (the secret is
 * in the secret store, never in that file).
 *
 * Attach it right after the core boots: the first heartbeat goes out at once (one that
 * went through before it was attached is printed and counted when it attaches).
 */
export class SeedLines {
  private beats = 0;
  private pairedAs: string | null = null;
  private failure: string | null = null;
  private readonly waiters = new Set<(outcome: BeatOutcome) => void>();
  private readonly offs: Array<() => void> = [];

  constructor(
    private readonly core: Core,
    private readonly out: Out,
    private readonly stateFile: string,
  ) {
    this.offs.push(core.runner.onHeartbeat(() => this.onBeat()));
    this.offs.push(core.host.subscribe((batch) => this.onEvents(batch)));
    // The first beat may have gone through while the core was still starting (before this
    // watched): it counts, or `--once` would wait a whole heartbeat period for the next.
    if (core.runner.snapshot().heartbeat.lastOkAt !== null) this.onBeat();
  }

  /** Heartbeats that went through so far. */
  get count(): number {
    return this.beats;
  }

  /** The next heartbeat's outcome (or the first one's, if it already happened). */
  nextBeat(): Promise<BeatOutcome> {
    if (this.beats > 0) return Promise.resolve({ ok: true });
    if (this.failure) return Promise.resolve({ ok: false, reason: this.failure });
    return new Promise((resolve) => this.waiters.add(resolve));
  }

  close(): void {
    for (const off of this.offs) off();
  }

  private onBeat(): void {
    this.beats++;
    const snapshot = this.core.runner.snapshot();
    this.maybePaired(snapshot);
    const detected = snapshot.runtimes ?? { claude: { installed: false }, codex: { installed: false } };
    const caps = capabilitiesForRuntime(detected, this.core.settings.get().runtime);
    this.out.write(
      `heartbeat ok #${this.beats} runner_id=${snapshot.identity?.runnerId ?? 'unknown'} claude=${caps.claude.installed} codex=${caps.codex.installed}\n`,
    );
    this.settle({ ok: true });
  }

  private onEvents(batch: HostEvent[]): void {
    for (const e of batch) {
      // The seed's lines are about the one profile the flags name.
      if (e.event !== 'runner:snapshot' || (e.payload.profile ?? this.core.runner.profile.id) !== this.core.runner.profile.id) continue;
      const s = e.payload;
      this.maybePaired(s);
      if (this.beats === 0 && (s.heartbeat.consecutiveFailures > 0 || s.status.state === 'revoked')) {
        this.failure = s.status.reason;
        this.settle({ ok: false, reason: s.status.reason });
      }
    }
  }

  /** Once per pairing, before that runner's first heartbeat line (the seed's order). */
  private maybePaired(s: RunnerSnapshot): void {
    if (s.pairing?.phase !== 'approved' || !s.identity || this.pairedAs === s.identity.runnerId) return;
    this.pairedAs = s.identity.runnerId;
    this.out.write(`paired runner_id=${s.identity.runnerId} state_file=${this.stateFile}\n`);
  }

  private settle(outcome: BeatOutcome): void {
    for (const resolve of [...this.waiters]) resolve(outcome);
    this.waiters.clear();
  }
}

/** The plane the flags name: Rost, or Sechroom with whether its codex is one the operator named. */
export type ModePlane = 'rost' | { sechroom: true; codexNamed: boolean };

/**
 * The start line's mode: whether this host runs work or only heartbeats, and why (the
 * flag, the variable, the setting, or the default), and whether a runtime is ready.
 */
function runModeLine(core: Core, sources: Partial<Record<SettingKey, string>>, plane: ModePlane): string {
  const settings = core.settings.get();
  const source = sources.runWork;
  if (!settings.runWork) {
    const why = source ?? 'the setting "Run work on this machine" is off';
    return `Mode: heartbeat only — nothing is claimed (${why}).`;
  }
  const why = source ?? (core.settings.overriddenKeys().includes('runWork') ? 'set at start' : 'the default; RUNNER_EXECUTE=0 or --no-execute turns it off');
  // The Sechroom executor drives its own codex app-server, not Rost's runtimes: a codex the operator named
  // (CODEX_BIN, the instance's) is theirs to vouch for; the detected one claims nothing until it is ready.
  if (plane !== 'rost') {
    const codex = plane.codexNamed ? { ready: true as const } : runtimeReady('codex', core.capabilities.peek()?.codex);
    if (!codex.ready) return `Mode: runs work on this machine (${why}), but codex is not ready (${codex.reason}): nothing is claimed until it is.`;
    return `Mode: runs work on this machine (${why}) with codex (the Sechroom executor drives codex app-server).`;
  }
  const readiness = runtimeReadiness({ capabilities: core.runner.snapshot().runtimes, preference: settings.runtime });
  if (readiness.ready.length === 0) {
    return `Mode: runs work on this machine (${why}), but no runtime is ready (${describeNotReady(readiness)}): nothing is claimed until one is.`;
  }
  return `Mode: runs work on this machine (${why}) with ${readiness.ready.join(' or ')}.`;
}

/**
 * Prints the mode line now, and again whenever it changes (a runtime signs in or out, the
 * setting is switched): a start line that said "nothing is claimed" must not stand while
 * work runs. Returns the unsubscribe.
 */
export function watchModeLine(core: Core, sources: Partial<Record<SettingKey, string>>, out: Out, plane: ModePlane = 'rost'): () => void {
  let last = runModeLine(core, sources, plane);
  out.write(`${last}\n`);
  return core.host.subscribe(() => {
    const now = runModeLine(core, sources, plane);
    if (now === last) return;
    last = now;
    out.write(`${now}\n`);
  });
}
