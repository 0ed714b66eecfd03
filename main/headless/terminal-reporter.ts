import type { HostEvent } from '../../shared/contract';
import type { PairingState } from '../../shared/runner';
import { duration, statusLine, type RunnerStatus } from '../../shared/status';
import type { TurnView } from '../../shared/turns';
import type { QuitOutcome } from '../core/quit-policy';

/**
 * What a headless host says on its terminal (what `journalctl` shows of it): the pairing
 * code and address (there is no window to show them), one line per change of status
 * (an outage is one line, not one per retry), and one line per finished turn.
 */
export class TerminalReporter {
  private lastPairing = '';
  private lastStatus = '';
  private offlineSince: number | null = null;

  constructor(
    private readonly out: { write(text: string): unknown },
    /** `--user-code`: that code was handed over, so there is nothing to show anyone. */
    private readonly handedCode: string | null = null,
    private readonly now: () => number = Date.now,
  ) {}

  onEvents(batch: HostEvent[]): void {
    for (const e of batch) {
      if (e.event === 'runner:snapshot' && e.payload.pairing) this.pairing(e.payload.pairing);
      if (e.event === 'runner:status') this.status(e.payload);
      if (e.event === 'turns:update') for (const turn of e.payload.finished) this.out.write(`${turnLine(turn)}\n`);
      if (e.event === 'runner:notice') this.out.write(`Notice: ${e.payload.message}\n`);
    }
  }

  private pairing(state: PairingState): void {
    const key = state.phase === 'waiting' ? `waiting:${state.userCode}` : state.phase;
    if (key === this.lastPairing) return;
    this.lastPairing = key;
    switch (state.phase) {
      case 'waiting': {
        if (this.handedCode && state.userCode.replace(/[\s-]/g, '').toUpperCase() === this.handedCode.replace(/[\s-]/g, '').toUpperCase()) {
          this.out.write(`Pairing with the code you were given (${state.userCode})…\n`);
          return;
        }
        const minutes = Math.max(1, Math.round((Date.parse(state.expiresAt) - Date.now()) / 60_000));
        this.out.write(
          `\n  Pair this machine: open ${state.verificationUri}\n  and enter the code   ${state.userCode}\n` +
            (state.verificationUriComplete ? `  (or open ${state.verificationUriComplete})\n` : '') +
            `  The code expires in about ${minutes} min.\n\n`,
        );
        return;
      }
      case 'approved':
        this.out.write(`Paired as ${state.runnerName}.\n`);
        return;
      case 'denied':
        this.out.write('Pairing was denied on the control plane.\n');
        return;
      case 'expired':
        this.out.write('The pairing code expired. Start pairing again.\n');
        return;
      case 'failed':
        this.out.write(`Pairing failed: ${state.message}\n`);
        return;
      case 'canceled':
      case 'starting':
        return;
    }
  }

  private status(status: RunnerStatus): void {
    const key = statusKey(status);
    if (key === this.lastStatus) return;
    this.lastStatus = key;
    if (status.state === 'offline') {
      this.offlineSince ??= this.now();
      this.out.write(`Status: Offline — ${status.reason} (retrying with backoff)\n`);
      return;
    }
    const back = this.offlineSince === null ? '' : ` (back after ${duration(this.now() - this.offlineSince)} offline)`;
    this.offlineSince = null;
    this.out.write(`Status: ${statusLine(status, this.now())} — ${status.reason}${back}\n`);
  }
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
