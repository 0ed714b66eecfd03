import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageLog } from '../../../main/core/usage/usage-log';
import { testLogging } from '../../helpers/test-logger';

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

const line = (n: number) => JSON.stringify({ ts: `2026-12-01T12:00:0${n}.000Z`, type: 'usage', account: 'default', unitId: `u${n}`, tokensIn: n });

describe('the usage log on disk', () => {
  it('cuts off a torn last line and sets a damaged line aside, with warnings, before its first append', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-usage-log-'));
    const usage = path.join(dir, 'usage');
    mkdirSync(usage);
    const file = path.join(usage, 'usage-log.jsonl');
    const before = `${line(1)}\n{"ts":"2026-12-01T12:00:02.000Z","type":"usa\u0000\n${line(3)}\n{"ts":"2026-12-01T12:00:04.000Z","ty`;
    writeFileSync(file, before);
    const logging = testLogging();
    const log = new UsageLog({ dir: usage, log: logging.log, now: () => Date.parse('2026-12-01T12:01:00.000Z') });

    await log.append({ type: 'admission', account: 'default', ok: true, reservePercent: 10, reason: null, resumesAt: null });
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.slice(0, 2)).toEqual([line(1), line(3)]);
    expect(lines).toHaveLength(4);
    expect(JSON.parse(lines[2]!)).toMatchObject({ type: 'admission', ts: '2026-12-01T12:01:00.000Z' });
    const warnings = logging.entries.filter((e) => e.level === 'warn').map((e) => e.msg);
    expect(warnings).toEqual([
      'the last line of the usage log was torn (cut short by a crash); it was dropped',
      'dropped unreadable lines of the usage log; the file was copied aside',
    ]);
    // Nothing is lost: the file as it was sits beside it.
    const aside = readdirSync(usage).filter((n) => n.startsWith('usage-log.jsonl.damaged-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(path.join(usage, aside[0]!), 'utf8')).toBe(before.slice(0, before.lastIndexOf('\n') + 1));
  });

  it('is checked at start (load), and a sound file is left as it is, with no warning', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-usage-log-'));
    const file = path.join(dir, 'usage-log.jsonl');
    writeFileSync(file, `${line(1)}\n${line(2)}\n`);
    const logging = testLogging();
    const log = new UsageLog({ dir, log: logging.log, now: () => 0 });
    await log.load();
    expect(readFileSync(file, 'utf8')).toBe(`${line(1)}\n${line(2)}\n`);
    expect(logging.entries.filter((e) => e.level === 'warn')).toEqual([]);
    expect(readdirSync(dir)).toEqual(['usage-log.jsonl']);
  });
});
