import type { CommandRunner } from '../process-runner';
import { commandFor } from '../child-launch';

/**
 * Whether an installed codex has the app-server (`codex app-server --help` succeeds), asked
 * once per binary. Used by the `auto` driver setting.
 */
export class AppServerSupport {
  private readonly known = new Map<string, Promise<boolean>>();

  constructor(private readonly runner: CommandRunner) {}

  check(binary: string): Promise<boolean> {
    let answer = this.known.get(binary);
    if (!answer) {
      const command = commandFor(binary, ['app-server', '--help']);
      answer = this.runner
        .run(command.command, command.args, { timeoutMs: 10_000 })
        .then((r) => r.code === 0 && /app-server|JSON-RPC|--listen/i.test(r.stdout + r.stderr))
        .catch(() => false);
      this.known.set(binary, answer);
    }
    return answer;
  }
}
