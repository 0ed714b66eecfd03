// Every secret value the host can name, so the bundle drops each one by value: the ones it
// learned this run, the runner secrets in the secret store, secret-named variables of its
// environment, and secret-named values in the profiles' JSON files (state files, tokens).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { isSecretKey, MIN_KNOWN_SECRET_LENGTH } from '../../../shared/redact';
import type { SecretStore } from '../secrets/secret-store';
import { profileDir, profileSecretAccount } from '../sessions/profile-store';

export interface SecretSources {
  /** What the host registered for redaction (runner secrets, sign-in tokens, device codes). */
  known(): readonly string[];
  store: SecretStore | null;
  /** Each profile's id and the control plane its secret is filed under. */
  profiles: readonly { id: string; controlPlaneUrl: string }[];
  env: Readonly<Record<string, string | undefined>>;
  dataDir: string;
  /** The shell's own (the headless host's window token). */
  extra?: () => readonly string[];
}

const SECRET_ENV_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH)/i;
const JsonObjectSchema = z.record(z.string(), z.unknown());

export async function secretValues(sources: SecretSources): Promise<string[]> {
  const found = new Set<string>(sources.known());
  for (const value of sources.extra?.() ?? []) found.add(value);
  for (const [name, value] of Object.entries(sources.env)) {
    if (value && (SECRET_ENV_NAME.test(name) || isSecretKey(name))) found.add(value);
  }
  for (const profile of sources.profiles) {
    const stored = await sources.store?.get(profileSecretAccount(profile.id, profile.controlPlaneUrl)).catch(() => null);
    if (stored) found.add(stored);
    for (const value of await jsonSecrets(profileDir(sources.dataDir, profile.id))) found.add(value);
  }
  return [...found].filter((s) => s.length >= MIN_KNOWN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/** String values under secret-named keys in a folder's JSON files (not its subfolders). */
async function jsonSecrets(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const out: string[] = [];
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const text = await readFile(path.join(dir, name), 'utf8').catch(() => '');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      continue;
    }
    const doc = JsonObjectSchema.safeParse(parsed);
    if (doc.success) collect(doc.data, out, 0);
  }
  return out;
}

function collect(value: unknown, out: string[], depth: number): void {
  if (depth > 8 || value === null || typeof value !== 'object') return;
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string' && (isSecretKey(key) || /token/i.test(key))) out.push(item);
    else collect(item, out, depth + 1);
  }
}
