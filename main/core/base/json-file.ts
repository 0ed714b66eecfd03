import { mkdir, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { z } from 'zod';
import { describeZodError } from '../../../shared/result';

/*
 * The core's JSON documents on disk (the runner state, the usage accounts, the profiles):
 * read and parsed with their zod schema, written owner-only and atomically (temp file +
 * rename). What a damaged one means (set aside, or refused) is each store's own business.
 */

export type JsonFileRead<T> = { kind: 'missing' } | { kind: 'ok'; value: T } | { kind: 'damaged'; why: string };

/** The document parsed with its schema; missing; or why it is damaged (not JSON, not valid). Any other read failure throws. */
export async function readJsonFile<T>(file: string, schema: z.ZodType<T>): Promise<JsonFileRead<T>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw error;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { kind: 'damaged', why: 'it is not JSON' };
  }
  const parsed = schema.safeParse(raw);
  return parsed.success ? { kind: 'ok', value: parsed.data } : { kind: 'damaged', why: describeZodError(parsed.error) };
}

/** A damaged document is kept beside it (never silently lost): where it went. */
export async function setAside(file: string): Promise<string> {
  const aside = `${file}.damaged-${Date.now()}`;
  await rename(file, aside);
  return aside;
}

/** Writes owner-only and atomically; the folder is created owner-only when missing. */
export async function writePrivateFile(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, text, { mode: 0o600 });
}
