// `runner-tray-headless diagnostics [--out FILE]`: the window's "Save diagnostics…" for a
// server: the host's core is booted without claiming, the redacted zip is written, it stops.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorText } from '../../shared/errors';
import type { Core } from '../core/bootstrap';

export interface DiagnosticsCommandIo {
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
  cwd: string;
  /** The host's core over the flags left (the same flags and env as the host); a number is a refusal's exit code. */
  boot(argv: string[]): Promise<Core | number>;
}

export const DIAGNOSTICS_USAGE = 'Usage: runner-tray-headless diagnostics [--out <file.zip>] [host flags: --data-dir <dir>, --profile <id>, …]';

export async function runDiagnosticsCommand(argv: string[], io: DiagnosticsCommandIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out.write(`${DIAGNOSTICS_USAGE}\n`);
    return 0;
  }
  const at = argv.indexOf('--out');
  const out = at >= 0 ? argv[at + 1] : undefined;
  if (at >= 0 && (!out || out.startsWith('--'))) {
    io.err.write(`runner-tray headless: --out needs a file name.\n${DIAGNOSTICS_USAGE}\n`);
    return 2;
  }
  const rest = at >= 0 ? [...argv.slice(0, at), ...argv.slice(at + 2)] : argv;
  const core = await io.boot(rest);
  if (typeof core === 'number') return core;
  try {
    const { fileName, zip } = await core.diagnostics();
    const file = path.resolve(io.cwd, out ?? fileName);
    await writeFile(file, zip, { mode: 0o600 });
    io.out.write(`Diagnostics written to ${file} (redacted; read it before you share it).\n`);
    return 0;
  } catch (error) {
    io.err.write(`runner-tray headless: could not write the diagnostics: ${errorText(error)}\n`);
    return 1;
  } finally {
    await core.shutdown(0);
  }
}
