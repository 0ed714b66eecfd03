import type { ClaimedUnit } from '../../../../shared/protocol';
import type { RunnerStateStore } from '../../runner/runner-state-store';

/**
 * The Claude resume cache of protocol §4 [seed]: one opaque session id per
 * tenant × seat × user × session, so a conversation's next turn resumes where it left off.
 * No key (and no caching) when any part is missing.
 */
export function resumeKey(tenantId: string | null, unit: ClaimedUnit): string | null {
  const seat = unit.seat?.id ?? unit.charter_ref?.seat_id ?? null;
  const user = unit.user_id ?? null;
  const session = unit.session_id ?? unit.aicos?.session_id ?? null;
  if (!tenantId || !seat || !user || !session) return null;
  return `${tenantId}:seat:${seat}:user:${user}:session:${session}:claude`;
}

export class ResumeCache {
  constructor(
    private readonly state: RunnerStateStore,
    private readonly now: () => number,
  ) {}

  get(key: string | null): string | null {
    if (!key) return null;
    return this.state.get().runtimeSessions[key]?.claude_session_id ?? null;
  }

  /** After a successful claude turn that reported its session id. */
  async remember(key: string | null, sessionId: string): Promise<void> {
    if (!key) return;
    await this.state.update((s) => ({
      ...s,
      runtimeSessions: { ...s.runtimeSessions, [key]: { claude_session_id: sessionId, updated_at: new Date(this.now()).toISOString() } },
    }));
  }

  /** After a failed turn that had resumed: the session may be what broke it. */
  async forget(key: string | null): Promise<void> {
    if (!key || !(key in this.state.get().runtimeSessions)) return;
    await this.state.update((s) => {
      const { [key]: _dropped, ...rest } = s.runtimeSessions;
      return { ...s, runtimeSessions: rest };
    });
  }
}
