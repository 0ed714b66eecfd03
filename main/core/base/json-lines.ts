import { copyFile, open, rename, rm, truncate } from 'node:fs/promises';
import type { Logger } from './ports';

/*
 * The core's JSON-lines files (the turn history, the usage log): one reader, and one check
 * at load. A torn last line (a crash mid-append) is cut off; a damaged line anywhere else
 * is set aside (the whole file is copied beside it first) and left out; either is reported
 * with a warning. The rest is never touched.
 */

const CHUNK = 256 * 1024;

/** Where a log ends: its complete lines' bytes, and the bytes of a last line without an end (torn). */
export interface LogEnd {
  size: number;
  tornBytes: number;
}

/**
 * Hands each complete line of a file to `onLine` (its bytes without the newline, valid
 * only during the call) with its byte offset and length (newline included), reading a
 * chunk at a time: the file is never in memory whole, and the event loop gets a turn
 * between chunks. Rejects with ENOENT when the file
 * is missing.
 */
export async function readLogLines(file: string, onLine: (line: Buffer, at: number, size: number) => void): Promise<LogEnd> {
  const handle = await open(file, 'r');
  try {
    let buffer = Buffer.alloc(CHUNK);
    /** Bytes at the start of `buffer` carried over from the last chunk (a line not yet ended), and their file offset. */
    let carried = 0;
    let base = 0;
    for (;;) {
      if (carried === buffer.length) buffer = Buffer.concat([buffer, Buffer.alloc(buffer.length)]);
      const { bytesRead } = await handle.read(buffer, carried, buffer.length - carried, null);
      if (bytesRead === 0) return { size: base, tornBytes: carried };
      const filled = carried + bytesRead;
      let start = 0;
      for (let end = buffer.indexOf(10, carried); end >= 0 && end < filled; end = buffer.indexOf(10, end + 1)) {
        onLine(buffer.subarray(start, end), base + start, end + 1 - start);
        start = end + 1;
      }
      buffer.copy(buffer, 0, start, filled);
      carried = filled - start;
      base += start;
    }
  } finally {
    await handle.close();
  }
}

export interface JsonLinesCheck extends LogEnd {
  /** Complete lines read (good and damaged). */
  lines: number;
  damaged: number;
  /** The copy of the file as it was, when a line was damaged. */
  keptAs: string | null;
}

export interface JsonLinesCheckOptions {
  /** What the file is, for the warnings ("the usage log"). */
  what: string;
  log: Logger;
  now(): number;
  /** Reads one complete line (as readLogLines hands it); false when the line is damaged. */
  onLine(line: Buffer, at: number, size: number): boolean;
  /**
   * Whether the check removes the damaged lines itself (a pass that writes the good ones to a
   * temp file and renames it over); false when the caller rewrites the file anyway.
   */
  dropDamaged: boolean;
}

/** Reads `file` line by line and repairs it; rejects with ENOENT when it is missing. */
export async function checkJsonLines(file: string, options: JsonLinesCheckOptions): Promise<JsonLinesCheck> {
  const damagedAt = new Set<number>();
  let lines = 0;
  const end = await readLogLines(file, (line, at, size) => {
    lines++;
    if (!options.onLine(line, at, size)) damagedAt.add(at);
  });
  if (end.tornBytes > 0) {
    // The next append must start on a line of its own.
    await truncate(file, end.size);
    options.log.warn(`the last line of ${options.what} was torn (cut short by a crash); it was dropped`, { file, bytes: end.tornBytes });
  }
  let keptAs: string | null = null;
  if (damagedAt.size > 0) {
    keptAs = `${file}.damaged-${options.now()}`;
    await copyFile(file, keptAs);
    options.log.warn(`dropped unreadable lines of ${options.what}; the file was copied aside`, { file, dropped: damagedAt.size, keptAs });
    if (options.dropDamaged) await rewriteWithout(file, damagedAt);
  }
  return { ...end, lines, damaged: damagedAt.size, keptAs };
}

/** The file without the lines that start at `skip`: written beside it, synced, renamed over it. */
async function rewriteWithout(file: string, skip: ReadonlySet<number>): Promise<void> {
  const temp = `${file}.repair-${process.pid}`;
  const out = await open(temp, 'w', 0o600);
  try {
    let pending: Promise<unknown> = Promise.resolve();
    await readLogLines(file, (line, at) => {
      if (skip.has(at)) return;
      const copy = Buffer.concat([line, NEWLINE]);
      pending = pending.then(() => out.write(copy));
    });
    await pending;
    await out.sync();
  } catch (error) {
    await out.close();
    await rm(temp, { force: true });
    throw error;
  }
  await out.close();
  await rename(temp, file);
}

const NEWLINE = Buffer.from('\n');
