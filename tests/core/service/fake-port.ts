import type { ServicePort } from '../../../main/headless/service/service-port';

/** A recording system: files in a map (with their encodings and modes), every command and its arguments in a list. */
export function fakePort(
  platform: NodeJS.Platform,
  answers: Record<string, { code?: number; stdout?: string; stderr?: string }> = {},
  options: { unbuilt?: boolean; uid?: number } = {},
) {
  const files = new Map<string, string>();
  const encodings = new Map<string, string>();
  const modes = new Map<string, number>();
  const calls: string[][] = [];
  const attached: string[][] = [];
  const port: ServicePort = {
    platform,
    homeDir: platform === 'win32' ? 'C:\\Users\\ada' : '/home/ada',
    uid: options.uid ?? (platform === 'win32' ? null : 1000),
    userName: options.uid === 0 ? 'root' : 'ada',
    // The host's bundle is built (npm run build:headless) unless a test removes it.
    exists: (file) => files.has(file) || (/[\\/]dist[\\/]headless[\\/]cli\.mjs$/.test(file) && !options.unbuilt),
    readFile: (file) => files.get(file) ?? null,
    writeFile: (file, text, written = {}) => {
      files.set(file, text);
      encodings.set(file, written.encoding ?? 'utf8');
      modes.set(file, written.mode ?? 0o644);
    },
    removeFile: (file) => void files.delete(file),
    mkdir: () => undefined,
    run: async (command, args) => {
      calls.push([command, ...args]);
      const answer = answers[[command, ...args].join(' ')] ?? {};
      return { code: answer.code ?? 0, stdout: answer.stdout ?? '', stderr: answer.stderr ?? '' };
    },
    attach: async (command, args) => {
      attached.push([command, ...args]);
      return 0;
    },
  };
  return { port, files, encodings, modes, calls, attached };
}

export function io() {
  let out = '';
  let err = '';
  return { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) }, text: () => out, errors: () => err };
}
