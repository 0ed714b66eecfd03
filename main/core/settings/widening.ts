import { randomBytes } from 'node:crypto';
import { egressHostEntries, SETTING_LABELS, type Settings } from '../../../shared/settings';
import { allowListNames, type WideningSetting } from '../../../shared/widening';
import { CommandFailure, type Caller } from '../base/dispatch';
import type { Clock, Logger } from '../base/ports';

/**
 * Settings that widen what a turn can reach are an operator's act, not a script's: a
 * prompt-injected task that got hold of a script token must not be able to hand the next
 * turn the operator's own claude/codex config (hooks, MCP servers) or more of the host's
 * environment (cloud keys). Turning one on needs a one-time value that only a window
 * session can get (`settings:widening-challenge`), and is logged with who and when.
 * Narrowing (turning off, removing names) needs nothing.
 */
export { activeWidening } from '../../../shared/widening';

/** What a change can widen: a runner setting, or a Sechroom instance's codex sandbox (`danger-full-access`). */
export type Widened = WideningSetting | 'sandbox';

/** A challenge is good once, for a few minutes: long enough for the operator to read the dialog. */
const CHALLENGE_TTL_MS = 5 * 60_000;
const MAX_OUTSTANDING = 8;

/** The settings of `patch` that widen the turn's reach compared with `current`. */
export function wideningOf(current: Settings, patch: Readonly<Record<string, unknown>>): WideningSetting[] {
  const widened: WideningSetting[] = [];
  if (patch.useOwnAgentConfig === true && !current.useOwnAgentConfig) widened.push('useOwnAgentConfig');
  if (typeof patch.runtimeEnvAllow === 'string') {
    const before = new Set(allowListNames(current.runtimeEnvAllow));
    if (allowListNames(patch.runtimeEnvAllow).some((name) => !before.has(name))) widened.push('runtimeEnvAllow');
  }
  if (patch.turnNetwork === 'shared' && current.turnNetwork !== 'shared') widened.push('turnNetwork');
  if (typeof patch.turnEgressHosts === 'string') {
    const before = new Set(egressHostEntries(current.turnEgressHosts));
    if (egressHostEntries(patch.turnEgressHosts).some((host) => !before.has(host))) widened.push('turnEgressHosts');
  }
  return widened;
}

export class WideningGate {
  private readonly outstanding = new Map<string, number>();

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly log: Logger,
  ) {}

  /** A one-time value for the window that asked; a script is refused. */
  challenge(caller: Caller): { nonce: string } {
    if (caller !== 'window') {
      throw new CommandFailure('window_only', 'Only the window can confirm a setting that widens what a turn can reach.');
    }
    const nonce = randomBytes(24).toString('base64url');
    this.outstanding.set(nonce, this.clock.now() + CHALLENGE_TTL_MS);
    while (this.outstanding.size > MAX_OUTSTANDING) this.outstanding.delete(this.outstanding.keys().next().value!);
    return { nonce };
  }

  /**
   * Lets a settings change through, or refuses it: a widening change needs a window caller
   * and an unspent, unexpired challenge value. A change that goes through is logged.
   */
  admit(widened: readonly Widened[], caller: Caller, nonce: unknown, profile: string): void {
    if (widened.length === 0) return;
    const expires = typeof nonce === 'string' ? this.outstanding.get(nonce) : undefined;
    if (typeof nonce === 'string') this.outstanding.delete(nonce);
    if (caller !== 'window' || expires === undefined || expires < this.clock.now()) {
      this.log.warn('refused a settings change that widens what a turn can reach', { settings: widened, by: caller, profile });
      throw new CommandFailure(
        'confirm_widening',
        `“${widened.map((key) => (key === 'sandbox' ? 'Sandbox: danger-full-access' : SETTING_LABELS[key])).join('” and “')}” widen${widened.length === 1 ? 's' : ''} what a turn can reach; only the operator can confirm that, in the window's Settings.`,
        widened[0],
      );
    }
    this.log.warn('a setting that widens what a turn can reach was turned on', {
      settings: widened,
      by: caller,
      at: new Date(this.clock.now()).toISOString(),
      profile,
    });
  }
}
