import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';

/** The port through which the core runs short helper commands (not agent turns). */
export interface CommandRunner {
  run(command: string, args: string[], options: { timeoutMs: number }): Promise<{ code: number | null; stdout: string; stderr: string }>;
  which(name: string): Promise<string | null>;
}

export function createCommandRunner(env: Record<string, string | undefined> = process.env, platform = process.platform): CommandRunner {
  return {
    run(command, args, { timeoutMs }) {
      return new Promise((resolve) => {
        const child = execFile(
          command,
          args,
          { timeout: timeoutMs, maxBuffer: 256 * 1024, windowsHide: true, env: env as NodeJS.ProcessEnv },
          (error, stdout, stderr) => {
            const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
            resolve({ code, stdout: String(stdout), stderr: String(stderr) });
          },
        );
        // A probe (`--version`, `auth status`) never gets input: a CLI that reads stdin, or
        // asks a question, sees end-of-file at once instead of holding detection to its timeout.
        child.stdin?.on('error', () => undefined);
        child.stdin?.end();
      });
    },
    async which(name) {
      const dirs = (env.PATH ?? env.Path ?? '').split(path.delimiter).filter(Boolean);
      const exts = platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
      for (const dir of dirs) {
        for (const ext of exts) {
          const candidate = path.join(dir, name + ext);
          try {
            await access(candidate, platform === 'win32' ? constants.F_OK : constants.X_OK);
            return candidate;
          } catch {
            // not here
          }
        }
      }
      return null;
    },
  };
}
