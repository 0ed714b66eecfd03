import { errorText } from '../../../shared/errors';
import { appendFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { checkJsonLines } from '../base/json-lines';
import type { Logger } from '../base/ports';

/**
 * The usage log: one JSON object per line in `usage/usage-log.jsonl`, as the seed writes
 * its `executor-usage-<key>.jsonl` (`usage`, `rate-limits` and `admission` records, each
 * with `ts` and the account). Rotated by size: the current file moves to `.1`, `.1` to
 * `.2`, and so on up to `keep` files. A write that fails is reported once and the runner
 * goes on without it (usage never stops work). Before the first append the file is checked
 * as every JSON-lines file is (main/core/base/json-lines.ts): a torn last line is cut off and a
 * damaged line set aside, with a warning.
 */
export type UsageLogRecord =
  | {
      type: 'usage';
      account: string;
      unitId: string;
      status: string;
      modelId?: string | null;
      tokensIn: number;
      tokensOut: number;
      costUsd: number | null;
      contextUsed?: number;
      contextWindow?: number | null;
    }
  | { type: 'rate-limits'; account: string; primary: unknown; secondary: unknown; remainingPercent: number | null }
  | { type: 'admission'; account: string; ok: boolean; reservePercent: number; reason: string | null; resumesAt: string | null };

/** What every line holds, whatever its type (records of other builds pass). */
const LineSchema = z.looseObject({ ts: z.string(), type: z.string(), account: z.string() });

function isRecordLine(line: Buffer): boolean {
  try {
    return LineSchema.safeParse(JSON.parse(line.toString('utf8'))).success;
  } catch {
    return false;
  }
}

export interface UsageLogOptions {
  dir: string;
  log: Logger;
  now(): number;
  maxBytes?: number;
  keep?: number;
}

export class UsageLog {
  readonly file: string;
  private chain: Promise<void> = Promise.resolve();
  private size: number | null = null;
  private warned = false;
  private readonly maxBytes: number;
  private readonly keep: number;

  constructor(private readonly options: UsageLogOptions) {
    this.file = path.join(options.dir, 'usage-log.jsonl');
    this.maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.keep = options.keep ?? 3;
  }

  /** Checks the file now (it is checked before the first append anyway). */
  load(): Promise<void> {
    this.chain = this.chain.then(() => this.write(null));
    return this.chain;
  }

  append(record: UsageLogRecord): Promise<void> {
    const line = `${JSON.stringify({ ts: new Date(this.options.now()).toISOString(), ...record })}\n`;
    this.chain = this.chain.then(() => this.write(line));
    return this.chain;
  }

  flush(): Promise<void> {
    return this.chain;
  }

  private async write(line: string | null): Promise<void> {
    try {
      if (this.size === null) {
        await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
        await this.check();
        this.size = await stat(this.file).then(
          (s) => s.size,
          () => 0,
        );
      }
      if (line === null) return;
      const bytes = Buffer.byteLength(line);
      if (this.size > 0 && this.size + bytes > this.maxBytes) await this.rotate();
      await appendFile(this.file, line, { mode: 0o600 });
      this.size += bytes;
    } catch (error) {
      if (!this.warned) {
        this.warned = true;
        this.options.log.warn(`usage log append failed (${errorText(error)}) — continuing without ${this.file}`);
      }
    }
  }

  /** The file as a crash or a full disk may have left it, repaired (see above); a missing one is fine. */
  private async check(): Promise<void> {
    try {
      await checkJsonLines(this.file, { what: 'the usage log', log: this.options.log, now: this.options.now, onLine: isRecordLine, dropDamaged: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  private async rotate(): Promise<void> {
    await rm(`${this.file}.${this.keep}`, { force: true });
    for (let i = this.keep - 1; i >= 1; i--) await rename(`${this.file}.${i}`, `${this.file}.${i + 1}`).catch(() => undefined);
    await rename(this.file, `${this.file}.1`);
    this.size = 0;
  }
}
