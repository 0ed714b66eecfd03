import { spawn } from 'node:child_process';
import { BASE_ALLOW } from '../exec/isolation/clean-env';

/**
 * The one way delivery runs git and gh: a port (tests and the session can wrap it), a
 * clean environment, no prompts of any kind, bounded output and time.
 *
 * Delivery runs outside the turn's sandbox with the operator's git credentials (ssh agent,
 * credential helpers, gh's sign-in): that is the point of it. What it must never do is
 * wait for a person: no terminal prompt (GIT_TERMINAL_PROMPT=0 and no controlling
 * terminal: the child is its own session), no askpass program (GIT_ASKPASS empty wins
 * over core.askPass and SSH_ASKPASS), no credential-manager dialog, no gh prompt.
 */
export interface ProcessResult {
  ok: boolean;
  /** Exit code; null when killed or when the program could not start. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** The program is not installed (ENOENT). */
  missing: boolean;
}

export interface ProcessRequest {
  cwd: string;
  /** Variables over the clean environment (GIT_DIR and friends). */
  env?: Readonly<Record<string, string>>;
  /** Written to the program's stdin (else stdin is closed). */
  input?: string;
}

export interface ProcessPort {
  run(bin: 'git' | 'gh', args: readonly string[], request: ProcessRequest): Promise<ProcessResult>;
}

/**
 * Passed from the runner's environment: what any program needs (the runtimes' base
 * allowlist: PATH, HOME, locale, proxies, CA bundles, Windows' system variables), and how
 * git and gh reach the remote as the operator set them up. Everything else is dropped.
 */
const PASSED: readonly string[] = [
  ...BASE_ALLOW,
  'XDG_CONFIG_HOME',
  // Who commits: containers and CI usually set the identity only in the environment.
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'EMAIL',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_NOSYSTEM',
  'GIT_SSL_CAINFO',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'SSH_AUTH_SOCK',
  'GH_TOKEN',
  'GITHUB_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
  'GH_HOST',
  'GH_CONFIG_DIR',
];

/** Set on every call, whatever the source says. */
const NO_PROMPTS: Readonly<Record<string, string>> = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_ASKPASS: '',
  SSH_ASKPASS: '',
  SSH_ASKPASS_REQUIRE: 'never',
  GCM_INTERACTIVE: 'never',
  GIT_EDITOR: 'true',
  GIT_PAGER: 'cat',
  // Paths given to git are paths, never patterns.
  GIT_LITERAL_PATHSPECS: '1',
  // Messages in one language, so notes read the same everywhere.
  LC_ALL: 'C',
  GH_PROMPT_DISABLED: '1',
  GH_NO_UPDATE_NOTIFIER: '1',
  GH_SPINNER_DISABLED: '1',
  NO_COLOR: '1',
};

const passed = (name: string) => PASSED.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));

export function deliveryEnv(source: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) if (value !== undefined && passed(name)) env[name] = value;
  return { ...env, ...NO_PROMPTS };
}

const MAX_OUTPUT = 10 * 1024 * 1024;

export interface SpawnPortOptions {
  /** Ambient environment (default: this process's). */
  sourceEnv?: Readonly<Record<string, string | undefined>>;
  /** A call that runs longer is killed (a push to a remote that never answers). */
  timeoutMs?: number;
}

/** The production port: spawns the program, in its own session (no terminal to prompt on). */
export function spawnProcessPort(options: SpawnPortOptions = {}): ProcessPort {
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  return {
    run(bin, args, request) {
      const env = { ...deliveryEnv(options.sourceEnv ?? process.env), ...request.env };
      return new Promise<ProcessResult>((settle) => {
        let settled = false;
        const resolve = (result: ProcessResult) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          settle(result);
        };
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        let size = 0;
        const child = spawn(bin, [...args], {
          cwd: request.cwd,
          env,
          stdio: ['pipe', 'pipe', 'pipe'],
          detached: process.platform !== 'win32',
          windowsHide: true,
        });
        const kill = () => {
          try {
            if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
            else child.kill('SIGKILL');
          } catch {
            // already gone
          }
        };
        const timer = setTimeout(kill, timeoutMs);
        timer.unref();
        const collect = (into: Buffer[]) => (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_OUTPUT) kill();
          else into.push(chunk);
        };
        // A program that exits before reading all of its input is its own answer, not an error here.
        child.stdin.on('error', () => undefined);
        child.stdin.end(request.input ?? '');
        child.stdout.on('data', collect(out));
        child.stderr.on('data', collect(err));
        child.on('error', (error: NodeJS.ErrnoException) => {
          resolve({ ok: false, code: null, stdout: '', stderr: error.message, missing: error.code === 'ENOENT' });
        });
        child.on('close', (code) => {
          const stdout = Buffer.concat(out).toString('utf8');
          const stderr = Buffer.concat(err).toString('utf8');
          resolve({ ok: code === 0, code, stdout, stderr: size > MAX_OUTPUT ? `${stderr}\noutput over ${MAX_OUTPUT} bytes: stopped` : stderr, missing: false });
        });
      });
    },
  };
}
