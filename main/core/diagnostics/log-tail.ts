import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { listLogFiles } from '../logging/log-files';

/** How much of the newest logs a bundle carries. */
export const DIAGNOSTICS_LOG_BYTES = 4 * 1024 * 1024;

/**
 * The newest `budget` bytes of the rotated JSON logs, newest file last, each cut at a line
 * start so every line kept is whole JSON. Files that cannot be read are skipped.
 */
export async function logTail(dir: string, baseName: string, budget = DIAGNOSTICS_LOG_BYTES): Promise<{ name: string; text: string }[]> {
  const out: { name: string; text: string }[] = [];
  let left = budget;
  for (const name of listLogFiles(dir, baseName).reverse()) {
    if (left <= 0) break;
    const text = await readEnd(path.join(dir, name), left).catch(() => null);
    if (text === null) continue;
    left -= Buffer.byteLength(text);
    out.unshift({ name, text });
  }
  return out;
}

async function readEnd(file: string, most: number): Promise<string> {
  const { size } = await stat(file);
  const from = Math.max(0, size - most);
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(size - from);
    await handle.read(buffer, 0, buffer.length, from);
    const text = buffer.toString('utf8');
    return from === 0 ? text : text.slice(text.indexOf('\n') + 1);
  } finally {
    await handle.close();
  }
}
