import { open } from 'node:fs/promises';

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
