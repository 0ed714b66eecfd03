import type { HostEvent } from '../../shared/contract';
import type { PairingState } from '../../shared/runner';
import { statusLine, type RunnerStatus } from '../../shared/status';

/**
 * What a headless host says on its terminal: the pairing code and address (there is no
 * window to show them), and each change of status, one line each.
 */
export class TerminalReporter {
  private lastPairing = '';
  private lastStatus = '';

  constructor(
    private readonly out: { write(text: string): unknown },
    /** `--user-code`: that code was handed over, so there is nothing to show anyone. */
    private readonly handedCode: string | null = null,
  ) {}

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
    const line = `${statusLine(status)} — ${status.reason}`;
    if (line === this.lastStatus) return;
    this.lastStatus = line;
    this.out.write(`Status: ${line}\n`);
  }
}
