import type { HostEvent } from '../../shared/contract';
import type { Result } from '../../shared/result';
import type { RunnerSnapshot } from '../../shared/runner';
import type { Settings } from '../../shared/settings';
import { defaultSettings } from '../../shared/settings';
import type { RunnerStatus } from '../../shared/status';
import type { TurnView } from '../../shared/turns';
import type { UsageSnapshot } from '../../shared/usage';
import type { Host } from '../../main/core/host';
import type { ProfileSummary } from '../../shared/profiles';

/**
 * A host for the tray's tests: answers the commands the tray uses from a snapshot the
 * test controls, records every command, and pushes event batches as the event hub does.
 */
export class TrayTestHost implements Pick<Host, 'status' | 'subscribe' | 'invoke'> {
  readonly invoked: Array<{ name: string; input: unknown }> = [];
  snapshot: RunnerSnapshot = snapshotOf({ state: 'unpaired', reason: 'Not paired yet.' });
  settings: Settings = defaultSettings('test-host');
  /** false: a host that cannot be asked to quit (the tray then quits through the app). */
  quitAnswers = true;
  /** null: the host answers usage:get with an error (as a host without usage would). */
  usage: UsageSnapshot | null = null;
  /** null: a host of one profile without profiles:list (as before profiles). */
  profiles: ProfileSummary[] | null = null;
  private readonly listeners = new Set<(batch: HostEvent[]) => void>();

  status(): RunnerStatus {
    return this.snapshot.status;
  }

  subscribe(listener: (batch: HostEvent[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async invoke(name: unknown, input: unknown): Promise<Result<unknown>> {
    this.invoked.push({ name: String(name), input });
    switch (name) {
      case 'runner:snapshot':
        return { ok: true, value: this.snapshot };
      case 'settings:get':
        return { ok: true, value: { settings: this.settings, overridden: [], warnings: [] } };
      case 'runner:pause': {
        const minutes = (input as { minutes: number | null }).minutes;
        const until = minutes === null ? null : new Date(Date.now() + minutes * 60_000).toISOString();
        this.push({ ...this.snapshot, paused: { until }, status: { state: 'paused', reason: 'Not taking new work.', until } });
        return { ok: true, value: this.snapshot };
      }
      case 'runner:resume':
        this.push({ ...this.snapshot, paused: null, status: { state: 'idle', reason: 'Connected and waiting for work.' } });
        return { ok: true, value: this.snapshot };
      case 'runner:quit': {
        // As the core's quit policy: waiting for the running turns, canceling them, or called off.
        if (!this.quitAnswers) return { ok: false, error: { code: 'unknown_command', message: 'no quit here' } };
        const mode = (input as { mode: 'after-turns' | 'now' | 'cancel' }).mode;
        const active = this.snapshot.sessions.active;
        const deadline = new Date(Date.now() + 5 * 60_000).toISOString();
        const status: RunnerStatus =
          mode === 'cancel'
            ? active > 0
              ? { state: 'working', reason: '', active, limit: 3 }
              : { state: 'idle', reason: '' }
            : { state: 'draining', reason: '', remaining: active, deadline, mode };
        this.push({ ...this.snapshot, status });
        return { ok: true, value: status };
      }
      case 'usage:get':
        return this.usage ? { ok: true, value: this.usage } : { ok: false, error: { code: 'unknown_command', message: 'no usage in this test host' } };
      case 'pairing:start':
        return { ok: true, value: { phase: 'starting' } };
      case 'profiles:list':
        return this.profiles ? { ok: true, value: this.profiles } : { ok: false, error: { code: 'unknown_command', message: 'no profiles in this test host' } };
      case 'runner:pause-all':
      case 'runner:resume-all':
        return { ok: true, value: this.profiles ?? [] };
      default:
        return { ok: false, error: { code: 'unknown_command', message: `not in this test host: ${String(name)}` } };
    }
  }

  emit(batch: HostEvent[]): void {
    for (const listener of this.listeners) listener(batch);
  }

  /** A new snapshot, sent as the runner does: the snapshot, then the status. */
  push(snapshot: RunnerSnapshot): void {
    this.snapshot = snapshot;
    this.emit([
      { event: 'runner:snapshot', payload: snapshot },
      { event: 'runner:status', payload: snapshot.status },
    ]);
  }

  finish(turns: TurnView[]): void {
    this.emit([{ event: 'turns:update', payload: { active: [], removed: turns.map((t) => t.id), finished: turns } }]);
  }

  changeSettings(patch: Partial<Settings>): void {
    this.settings = { ...this.settings, ...patch };
    this.emit([{ event: 'settings:changed', payload: { settings: this.settings, overridden: [], warnings: [] } }]);
  }
}

export function snapshotOf(status: RunnerStatus, extra: Partial<RunnerSnapshot> = {}): RunnerSnapshot {
  const paired = !['unpaired', 'pairing', 'revoked'].includes(status.state);
  return {
    status,
    pairing: null,
    identity: paired ? { runnerId: 'r-1', tenantId: 't-1', name: 'studio', controlPlane: 'http://127.0.0.1:7457', pairedAt: '2026-01-01T00:00:00.000Z' } : null,
    secretStorage: { backend: 'keychain', warning: null, problem: null },
    heartbeat: { lastOkAt: null, nextAt: null, consecutiveFailures: 0, longPoll: false, intervalMs: 30_000 },
    runtimes: null,
    modelAccount: { alias: 'default', state: 'unknown' },
    sessions: { active: status.state === 'working' ? status.active : 0, max: 3 },
    paused: status.state === 'paused' ? { until: status.until } : null,
    ...extra,
  };
}

export function failedTurn(id: string, seat: string | null, reason: string): TurnView {
  return {
    id,
    kind: 'turn_execution',
    runtime: 'claude',
    seat: seat ? { id: `seat-${id}`, name: seat } : null,
    buildRequestId: null,
    startedAt: '2026-01-01T00:00:00.000Z',
    endedAt: '2026-01-01T00:01:00.000Z',
    phase: 'failed',
    pid: null,
    tokens: null,
    costUsd: null,
    outputTail: '',
    summary: reason,
    lease: null,
    reason,
  };
}
