import { duration } from '../../shared/status';
import type { Interrupt } from '../core/quit-policy';

type Write = { write(text: string): unknown };

/**
 * The terminal's side of a Ctrl-C (or SIGTERM): asks the quit policy and says what it did.
 * The turns counted are the whole host's, every profile's. A signal once the host is
 * already stopping now ends the process at once (`exit`).
 */
export function interruptHandler(deps: { interrupt: () => Interrupt; out: Write; exit: (code: number) => void }): (signal: string) => void {
  const again = 'Press Ctrl-C again within 3 s to stop now.';
  return (signal) => {
    const done = deps.interrupt();
    switch (done.kind) {
      case 'drain':
        deps.out.write(
          done.active > 0
            ? `Stopping (${signal}): waiting for ${done.active} running turn(s), up to ${duration(done.limitMs)}. ${again}\n`
            : `Stopping (${signal})…\n`,
        );
        return;
      case 'still-draining':
        deps.out.write(`Still waiting for ${done.active} running turn(s), up to ${duration(done.remainingMs)}. ${again}\n`);
        return;
      case 'now':
        // Stop now: cancel what runs (their results are still reported), then finish quitting.
        deps.out.write('Stopping now: canceling running turns.\n');
        return;
      case 'stopping':
        deps.exit(130);
    }
  };
}
