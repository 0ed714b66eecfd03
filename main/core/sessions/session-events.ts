import type { HostEvent } from '../../../shared/contract';
import type { RunnerSnapshot } from '../../../shared/runner';

export interface SessionEventsDeps {
  profile: string;
  emit(event: HostEvent): void;
  /** The registry hears of it (the switcher and the tray). */
  onChange(): void;
}

/**
 * What every kind of session (Rost, Sechroom) tells the host when it changes: its snapshot
 * each time, its status only when that changed, then the registry; and each good heartbeat
 * to whoever listens (the headless seed lines).
 */
export class SessionEvents {
  private lastStatusJson = '';
  private readonly beatListeners = new Set<() => void>();

  constructor(private readonly deps: SessionEventsDeps) {}

  changed(snapshot: RunnerSnapshot): void {
    this.deps.emit({ event: 'runner:snapshot', payload: snapshot });
    const json = JSON.stringify(snapshot.status);
    if (json !== this.lastStatusJson) {
      this.lastStatusJson = json;
      this.deps.emit({ event: 'runner:status', payload: { ...snapshot.status, profile: this.deps.profile } });
    }
    this.deps.onChange();
  }

  onHeartbeat(listener: () => void): () => void {
    this.beatListeners.add(listener);
    return () => this.beatListeners.delete(listener);
  }

  beat(): void {
    for (const listener of [...this.beatListeners]) listener();
  }
}
