import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LogEntry } from '../../../shared/contract';
import { LogEntrySchema } from '../../../shared/contract';
import { type Logging, createLogger } from '../../../main/core/logging/logger';
import { listLogFiles } from '../../../main/core/logging/log-files';

const CANARY = `canary-s3cr3t-${Math.random().toString(36).slice(2)}`;

let dir: string;
let open: Logging[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rt-log-'));
  open = [];
});
afterEach(async () => {
  await Promise.all(open.map((l) => l.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function logger(options: Parameters<typeof createLogger>[0]): Promise<Logging> {
  const l = await createLogger(options);
  open.push(l);
  return l;
}

function allFileText(): string {
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('');
}

function logSecrets(l: Logging): void {
  const log = l.logger.child('pairing');
  log.info(`claimed with ${CANARY}`, { runner_secret: CANARY, innocuous: `x ${CANARY} y`, nested: { deeper: [CANARY] } });
  log.warn('header', { headers: { authorization: `Bearer ${CANARY}` } });
  log.error('failed', { err: new Error(`request failed: ${CANARY}`) });
  log.info(`Authorization: Bearer abcdefgh12345678`);
}

describe('createLogger', () => {
  it('redacts a registered secret from the ring and the file, and keeps lines as valid entries', async () => {
    const l = await logger({ dir, level: 'debug' });
    l.addSecret(CANARY);
    logSecrets(l);
    await l.flush();
    const entries = l.recent(10);
    expect(entries).toHaveLength(4);
    for (const e of entries) expect(LogEntrySchema.safeParse(e).success).toBe(true);
    expect(JSON.stringify(entries).includes(CANARY)).toBe(false);
    expect(entries[0]?.component).toBe('pairing');
    expect(entries[0]?.data?.runner_secret).toBe('[REDACTED]');
    expect(entries[3]?.msg).toBe('Authorization: [REDACTED]');
    await l.close();
    const text = allFileText();
    expect(text.length).toBeGreaterThan(0);
    expect(text.includes(CANARY)).toBe(false);
    expect(text.includes('abcdefgh12345678')).toBe(false);
    for (const line of text.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('redacts secret-named fields even when no secret was registered', async () => {
    const l = await logger({ dir: null });
    logSecrets(l);
    const text = JSON.stringify(l.recent(10));
    // runner_secret, the authorization header and the bearer token are caught by name and shape.
    expect(l.recent(10)[0]?.data?.runner_secret).toBe('[REDACTED]');
    expect(text.includes(`Bearer ${CANARY}`)).toBe(false);
  });

  it('writes owner-only files in an owner-only directory', async () => {
    const logDir = join(dir, 'logs');
    const l = await logger({ dir: logDir });
    l.logger.info('hello');
    expect(l.file).toMatch(/runner-tray\.\d{4}-\d{2}-\d{2}\.1\.log$/);
    expect(statSync(logDir).mode & 0o777).toBe(0o700);
    expect(statSync(l.file as string).mode & 0o777).toBe(0o600);
  });

  it('rolls by size and keeps only the newest files', async () => {
    const l = await logger({ dir, rotation: { size: '1k', keep: 3 } });
    for (let burst = 0; burst < 6; burst++) {
      for (let i = 0; i < 12; i++) l.logger.info(`burst ${burst} line ${i} ${'x'.repeat(80)}`);
      // pino-roll rolls on the stream's next 'drain', which it emits on the next tick
      await new Promise<void>((resolve) => process.nextTick(resolve));
    }
    await l.close();
    const files = listLogFiles(dir, 'runner-tray');
    expect(files.length).toBe(3);
    const numbers = files.map((f) => Number(f.split('.').at(-2)));
    expect(Math.max(...numbers)).toBeGreaterThanOrEqual(6);
    expect(allFileText()).toContain('burst 5 line 11');
  });

  it('feeds subscribers and onEntry with sequenced entries, and respects the level', async () => {
    const seen: LogEntry[] = [];
    const fromOption: LogEntry[] = [];
    const l = await logger({ dir: null, level: 'info', onEntry: (e) => fromOption.push(e) });
    const off = l.subscribe((e) => seen.push(e));
    l.logger.debug('hidden');
    l.logger.info('one');
    l.logger.child('a').child('b').warn('two', { n: 2 });
    off();
    l.logger.error('three');
    expect(seen.map((e) => e.msg)).toEqual(['one', 'two']);
    expect(seen[1]).toMatchObject({ level: 'warn', component: 'a.b', data: { n: 2 } });
    expect(fromOption.map((e) => e.seq)).toEqual([0, 1, 2]);
    l.setLevel('debug');
    l.logger.child('a').debug('now visible');
    expect(l.recent(1)[0]?.msg).toBe('now visible');
  });

  it('keeps only the last ringSize entries', async () => {
    const l = await logger({ dir: null, ringSize: 5 });
    for (let i = 0; i < 12; i++) l.logger.info(`m${i}`);
    expect(l.recent(100).map((e) => e.msg)).toEqual(['m7', 'm8', 'm9', 'm10', 'm11']);
    expect(l.recent(2).map((e) => e.msg)).toEqual(['m10', 'm11']);
  });

  it('close() clears the roll timer and the file descriptor, and is idempotent', async () => {
    const fds = (): number => (process.platform === 'linux' ? readdirSync('/proc/self/fd').length : 0);
    const fdsBefore = fds();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const l = await createLogger({ dir, rotation: { frequency: 60_000 } });
      l.logger.info('one line');
      expect(vi.getTimerCount()).toBe(1); // pino-roll's next roll
      if (process.platform === 'linux') expect(fds()).toBe(fdsBefore + 1);
      await l.close();
      await l.close();
      expect(vi.getTimerCount()).toBe(0);
      expect(fds()).toBe(fdsBefore);
      expect(l.file).toBeNull();
      l.logger.info('after close goes nowhere but the ring');
      expect(l.recent(1)[0]?.msg).toBe('after close goes nowhere but the ring');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('createLogger without a usable directory', () => {
  it('keeps logging to the ring and says why files are off', async () => {
    const blocker = join(dir, 'not-a-dir');
    writeFileSync(blocker, 'x');
    const l = await logger({ dir: join(blocker, 'logs') });
    l.logger.info('still here');
    expect(l.file).toBeNull();
    expect(l.recent(2).map((e) => `${e.level}: ${e.msg}`)).toEqual([
      `warn: log files are off: ${join(blocker, 'logs')} could not be opened (ENOTDIR)`,
      'info: still here',
    ]);
  });
});
