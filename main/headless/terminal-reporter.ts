import type { HostEvent } from '../../shared/contract';
import type { PairingState } from '../../shared/runner';
import { statusLine, type RunnerStatus } from '../../shared/status';
import type { Core } from '../core/bootstrap';
import type { QuitOutcome } from '../core/quit-policy';

/**
 * What a headless host says on its terminal: the pairing code and address (there is no
 * window to show them), and each change of status, one line each.
 */
export class TerminalReporter {
  private lastPairing = '';
  private lastStatus = '';

  constructor(private readonly out: { write(text: string): unknown }) {}

  onEvents(batch: HostEvent[]): void {
    for (const e of batch) {
      if (e.event === 'runner:snapshot' && e.payload.pairing) this.pairing(e.payload.pairing);
      if (e.event === 'runner:status') this.status(e.payload);
    }
  }

  private pairing(state: PairingState): void {
    const key = state.phase === 'waiting' ? `waiting:${state.userCode}` : state.phase;
    if (key === this.lastPairing) return;
    this.lastPairing = key;
    switch (state.phase) {
      case 'waiting': {
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
    const line = statusLine(status);
    if (line === this.lastStatus) return;
    this.lastStatus = line;
    this.out.write(`Status: ${line} — ${status.reason}\n`);
  }

  /** `--once`: one heartbeat, then the exit code says whether it went through (as the seed). */
  oneHeartbeat(core: Core): Promise<number> {
    if (!core.runner.identity) {
      this.out.write('Not paired: run without --once to pair this machine first.\n');
      return Promise.resolve(1);
    }
    return new Promise((resolve) => {
      const off = core.host.subscribe((batch) => {
        for (const e of batch) {
          if (e.event !== 'runner:snapshot') continue;
          if (e.payload.heartbeat.lastOkAt) {
            this.out.write(`heartbeat ok runner_id=${e.payload.identity?.runnerId ?? '?'}\n`);
            off();
            return resolve(0);
          }
          if (e.payload.heartbeat.consecutiveFailures > 0 || e.payload.status.state === 'revoked') {
            this.out.write(`heartbeat failed: ${e.payload.status.reason}\n`);
            off();
            return resolve(1);
          }
        }
      });
    });
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
