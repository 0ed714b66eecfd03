import { readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The built renderer's files, as both shells serve them (Electron's app:// scheme and the
 * headless host): one path check that never leaves the folder, one table of types.
 */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentTypeOf(file: string): string {
  return TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** Maps a URL path to a file inside `root`, or null when it would leave the folder. */
export function resolveInside(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const relative = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^[/\\]+/, '');
  const base = path.resolve(root);
  const file = path.resolve(base, relative);
  return file.startsWith(base + path.sep) ? file : null;
}

/** Reads a file of the built renderer; anything outside its folder, or missing, is null. */
export async function readRendererFile(root: string, urlPath: string): Promise<{ body: Buffer; type: string } | null> {
  const file = resolveInside(root, urlPath);
  if (!file) return null;
  try {
    return { body: await readFile(file), type: contentTypeOf(file) };
  } catch {
    return null;
  }
}
