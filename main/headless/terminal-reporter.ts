import type { HostEvent } from '../../shared/contract';
import type { PairingState } from '../../shared/runner';
import { duration, statusLine, type RunnerStatus } from '../../shared/status';
import type { TurnView } from '../../shared/turns';
import { capNoticeText } from '../../shared/usage-text';
import type { QuitOutcome } from '../core/quit-policy';

/**
 * What a headless host says on its terminal (what `journalctl` shows of it): the pairing
 * code and address (there is no window to show them), one line per change of status
 * (an outage is one line, not one per retry), one line per finished turn, and one when a
 * model account's spending cap reaches 80 % (the desktop app notifies instead). Every
 * profile of the host gets its lines; while there is more than one, each line starts
 * with the profile's name in brackets.
 */
export class TerminalReporter {
  private readonly lastPairing = new Map<string, string>();
  private readonly lastStatus = new Map<string, string>();
  private readonly offlineSince = new Map<string, number>();
  private readonly names = new Map<string, string>();
  /** Turns that ended (not canceled) over the whole run. */
  private finishedTurns = 0;
  /** How many had ended when the last quit began (null: no quit began). */
  private finishedBeforeQuit: number | null = null;
  private readonly main: string;

  constructor(
    private readonly out: { write(text: string): unknown },
    /** `--user-code`: that code was handed over, so there is nothing to show anyone. */
    private readonly handedCode: string | null = null,
    private readonly now: () => number = Date.now,
    /** The host's profiles at start (later ones arrive as `profiles:changed`), and the one events without a profile are about. */
    profiles: { list: readonly { id: string; name: string }[]; main: string } = { list: [], main: 'default' },
  ) {
    for (const p of profiles.list) this.names.set(p.id, p.name);
    this.main = profiles.main;
  }

  onEvents(batch: HostEvent[]): void {
    // A profile added in this batch names the batch's lines already.
    for (const e of batch) if (e.event === 'profiles:changed') for (const p of e.payload) this.names.set(p.id, p.name);
    for (const e of batch) {
      if (e.event === 'runner:snapshot' && e.payload.pairing) this.pairing(e.payload.profile ?? this.main, e.payload.pairing);
      if (e.event === 'runner:status') this.status(e.payload.profile ?? this.main, e.payload);
      if (e.event === 'turns:update')
        for (const turn of e.payload.finished) {
          if (turn.phase !== 'canceled') this.finishedTurns++;
          this.line(turn.profile ?? this.main, turnLine(turn));
        }
      if (e.event === 'runner:notice') this.out.write(`Notice: ${e.payload.message}\n`);
      if (e.event === 'usage:notice' && e.payload.kind === 'cap') this.out.write(`Spending: ${capNoticeText(e.payload, this.now())}\n`);
    }
  }

  /** A quit began: the turns that end from now on are the quit's to count (drained or canceled). */
  quitBegan(): void {
    this.finishedBeforeQuit = this.finishedTurns;
  }

  /**
   * The exit line, its turns counted over the whole run: those that ended before the quit
   * and those the quit drained. A turn the quit canceled is not "finished", even when its
   * plane reports it failed (a turn its runtime ended as failed while the quit stopped it).
   */
  exitLine(outcome: Extract<QuitOutcome, { kind: 'stopped' }>): string {
    const before = this.finishedBeforeQuit;
    return exitLine({ ...outcome, finished: before === null ? Math.max(outcome.finished, this.finishedTurns) : before + outcome.finished });
  }

  /** One line, named by its profile while the host has more than one. */
  private line(profile: string, text: string): void {
    if (!this.names.has(profile)) this.names.set(profile, profile);
    this.out.write(`${this.names.size > 1 ? `[${this.names.get(profile) ?? profile}] ` : ''}${text}\n`);
  }

  private pairing(profile: string, state: PairingState): void {
    const key = state.phase === 'waiting' ? `waiting:${state.userCode}` : state.phase === 'retrying' ? `retrying:${state.attempts}` : state.phase;
    if (key === this.lastPairing.get(profile)) return;
    this.lastPairing.set(profile, key);
    const say = (text: string) => this.line(profile, text);
    switch (state.phase) {
      case 'waiting': {
        if (this.handedCode && state.userCode.replace(/[\s-]/g, '').toUpperCase() === this.handedCode.replace(/[\s-]/g, '').toUpperCase()) {
          say(`Pairing with the code you were given (${state.userCode})…`);
          return;
        }
        const minutes = Math.max(1, Math.round((Date.parse(state.expiresAt) - Date.now()) / 60_000));
        const named = this.names.size > 1 ? ` (profile ${this.names.get(profile) ?? profile})` : '';
        this.out.write(
          `\n  Pair this machine${named}: open ${state.verificationUri}\n  and enter the code   ${state.userCode}\n` +
            (state.verificationUriComplete ? `  (or open ${state.verificationUriComplete})\n` : '') +
            `  The code expires in about ${minutes} min.\n\n`,
        );
        return;
      }
      case 'approved':
        say(`Paired as ${state.runnerName}.`);
        return;
      case 'denied':
        say('Pairing was denied on the control plane.');
        return;
      case 'expired':
        say('The pairing code expired. Start pairing again.');
        return;
      case 'failed':
        say(`Pairing failed: ${state.message}`);
        return;
      case 'retrying': {
        const seconds = Math.max(0, Math.round((Date.parse(state.nextAttemptAt) - this.now()) / 1000));
        const what = state.what === 'import' ? 'Taking over the state file' : 'Pairing';
        say(`${what} could not reach the control plane (${state.lastError}); trying again in ${seconds} s.`);
        return;
      }
      case 'canceled':
      case 'starting':
        return;
    }
  }

  private status(profile: string, status: RunnerStatus): void {
    const key = statusKey(status);
    if (key === this.lastStatus.get(profile)) return;
    this.lastStatus.set(profile, key);
    if (status.state === 'offline') {
      if (!this.offlineSince.has(profile)) this.offlineSince.set(profile, this.now());
      this.line(profile, `Status: Offline — ${status.reason} (retrying with backoff)`);
      return;
    }
    const since = this.offlineSince.get(profile);
    const back = since === undefined ? '' : ` (back after ${duration(this.now() - since)} offline)`;
    this.offlineSince.delete(profile);
    this.line(profile, `Status: ${statusLine(status, this.now())} — ${status.reason}${back}`);
  }
}

/**
 * The start's status line: the host's one profile's, or, with several, the worst of them,
 * said to be the host's (each profile's own line names it).
 */
export function hostStatusLine(status: RunnerStatus, profiles: number): string {
  return profiles > 1 ? `Host status (${profiles} profiles): ${statusLine(status)}` : `Status: ${statusLine(status)}`;
}

/** The one line the terminal prints as the host exits. */
export function exitLine(outcome: Extract<QuitOutcome, { kind: 'stopped' }>): string {
  const turns = (n: number) => `${n} turn${n === 1 ? '' : 's'}`;
  const parts = [`${turns(outcome.finished)} finished`];
  if (outcome.canceled > 0) parts.push(`${turns(outcome.canceled)} canceled`);
  const delivery =
    outcome.undelivered === 0
      ? 'every result delivered'
      : `${outcome.undelivered} result${outcome.undelivered === 1 ? '' : 's'} not delivered yet (sent on the next start)`;
  return `Stopped: ${parts.join(', ')}; ${delivery}.`;
}

/** What makes a status a new one: a retry's countdown or a drain's remaining minutes do not. */
function statusKey(status: RunnerStatus): string {
  switch (status.state) {
    case 'offline':
      return 'offline';
    case 'draining':
      return `draining:${status.remaining}:${status.mode ?? ''}`;
    default:
      return JSON.stringify(status);
  }
}

/** "Turn succeeded in 42 s: unit te-123 (claude)" — and why, when it did not succeed. */
export function turnLine(turn: TurnView): string {
  const took = turn.endedAt ? ` in ${duration(Date.parse(turn.endedAt) - Date.parse(turn.startedAt))}` : '';
  const runtime = turn.runtime ? ` (${turn.runtime})` : '';
  const why = turn.phase !== 'succeeded' && turn.reason ? ` — ${turn.reason}` : '';
  return `Turn ${turn.phase}${took}: unit ${turn.id}${runtime}${why}`;
}
