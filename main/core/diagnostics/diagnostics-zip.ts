// The diagnostics bundle's zip: every file's text redacted (the shared redaction, with the
// host's secret values dropped by value in every encoding it knows) and a README.txt that
// says what each file is.
import { strToU8, zipSync } from 'fflate';
import { MIN_KNOWN_SECRET_LENGTH, REDACTED, redactText } from '../../../shared/redact';

/** One file of the bundle: its name in the zip, what it holds (for README.txt), its text. */
export interface DiagnosticsFile {
  name: string;
  about: string;
  text: string;
}

const README_HEAD = [
  'Runner Tray diagnostics',
  '',
  "A snapshot of this machine's runner host, for a bug report. Every file was passed",
  "through the app's redaction, and the secrets the host holds (runner secrets, sign-in",
  'tokens, the headless token) were removed by value, before the zip was written.',
  'Read it before you share it: redaction catches what looks like a secret, not everything.',
  '',
  'Files:',
];

/** The text with every known secret replaced, then the shared redaction, then a last plain check. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = redactText(text, secrets);
  for (const secret of secrets) {
    if (secret.length >= MIN_KNOWN_SECRET_LENGTH && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** The zip's bytes: the files scrubbed, README.txt first. */
export function zipDiagnostics(files: readonly DiagnosticsFile[], secrets: readonly string[], createdAt: Date): Uint8Array {
  const readme = [...README_HEAD, ...files.map((f) => `  ${f.name}: ${f.about}`), '', `Written ${createdAt.toISOString()}.`, ''].join('\n');
  const entries: Record<string, Uint8Array> = { 'README.txt': strToU8(readme) };
  for (const file of files) entries[file.name] = strToU8(scrub(file.text, secrets));
  return zipSync(entries, { level: 6, mtime: createdAt });
}

/** `runner-tray-diagnostics-2026-12-07T16-40-00Z.zip` */
export function diagnosticsFileName(at: Date): string {
  return `runner-tray-diagnostics-${at
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-')}.zip`;
}
