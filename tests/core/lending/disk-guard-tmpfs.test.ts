import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defaultSettings } from '../../../shared/settings';
import { LendingGate } from '../../../main/core/lending/lending-gate';
import { statfsDiskSource } from '../../../main/core/lending/sources';
import { DurableOutbox } from '../../../main/core/sessions/durable-outbox';
import { NoteJournal } from '../../../main/core/sessions/note-journal';
import { createConfSettingsBackend } from '../../../main/core/settings/conf-settings-backend';
import { createSettingsStore } from '../../../main/core/settings/settings-store';
import { FakeClock } from '../../helpers/fake-clock';
import { testLogging } from '../../helpers/test-logger';

// A real 8 MB tmpfs filled to the brim: the disk guard stops claims, what the stores wrote
// before still parses (their writes fail, they do not tear), and claims resume once space
// comes back. Mounting needs root: elsewhere the test says so and skips.

const root = process.getuid?.() === 0 && process.platform === 'linux';
let dir = '';

beforeAll(() => {
  if (!root) return;
  dir = mkdtempSync(path.join(os.tmpdir(), 'lend-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir]);
});
afterAll(() => {
  if (!dir) return;
  execFileSync('umount', [dir]);
  rmSync(dir, { recursive: true, force: true });
});

const Note = z.object({ id: z.string(), text: z.string() });
type Note = z.infer<typeof Note>;
class Journal extends NoteJournal<Note> {
  put = (n: Note) => this.write(n);
  all = () => this.read();
}

/** Writes zeros until the disk refuses (ENOSPC). */
async function fill(file: string): Promise<void> {
  const handle = await open(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) await handle.write(chunk);
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
  } finally {
    await handle.close();
  }
}

describe.skipIf(!root)('the disk guard on a full tmpfs (needs root to mount one)', () => {
  it('stops claims when the disk is full, corrupts nothing, and resumes when space returns', async () => {
    const clock = new FakeClock();
    const { log } = testLogging();
    const settings = createSettingsStore({ backend: createConfSettingsBackend({ dir }), hostname: 'tmpfs', onWarning: () => undefined });
    expect(settings.update({ runnerName: 'lent-laptop' }).ok).toBe(true);
    const journal = new Journal(path.join(dir, 'running'), Note, (n) => n.id);
    await journal.put({ id: 'turn-1', text: 'claimed' });
    const outbox = new DurableOutbox<Note>({
      dir: path.join(dir, 'outbox'),
      schema: Note,
      keyOf: (n) => n.id,
      noun: 'an outbox entry',
      retryLine: 'retrying',
      clock,
      log,
      courier: { target: () => null, deliver: () => Promise.resolve({ outcome: 'delivered' }) },
      deliverBesideWrite: false,
    });
    await outbox.enqueue({ id: 'result-1', text: 'done' });
    await writeFile(path.join(dir, 'turn-history.jsonl'), `${JSON.stringify({ id: 'turn-0' })}\n`);

    // A floor of 2 MB on an 8 MB disk (diskMinFreeGb is in GB).
    const gate = new LendingGate({
      clock,
      log,
      terms: () => ({ ...defaultSettings('tmpfs'), diskMinFreeGb: 0.002 }),
      sources: {
        idle: { idleSeconds: () => Promise.resolve(3600) },
        power: { read: () => Promise.resolve(null) },
        cpu: { percent: () => 1 },
        disk: statfsDiskSource,
      },
      folders: () => [dir],
    });
    await gate.start();
    expect(gate.admission.allowsClaim()).toBe(true);

    await fill(path.join(dir, 'filler'));
    await gate.check();
    expect(gate.holds()).toEqual([
      { kind: 'disk', reason: expect.stringMatching(new RegExp(`^Only 0 MB free on ${dir} \\(needs 2 MB\\) — resumes above it$`)), resumesAt: null },
    ]);
    expect(gate.admission.allowsClaim()).toBe(false);

    // The stores' writes on the full disk fail; what they wrote before is whole.
    await expect(journal.put({ id: 'turn-2', text: 'x'.repeat(1 << 20) })).rejects.toThrow();
    expect(settings.update({ runnerName: 'on-a-full-disk' }).ok).toBe(false);
    const reopened = createSettingsStore({ backend: createConfSettingsBackend({ dir }), hostname: 'tmpfs', onWarning: () => undefined });
    expect(reopened.get().runnerName).toBe('lent-laptop');
    expect((await journal.all()).map((n) => n.id)).toEqual(['turn-1']);
    for (const name of readdirSync(path.join(dir, 'outbox'))) Note.parse(JSON.parse(readFileSync(path.join(dir, 'outbox', name), 'utf8')));
    expect(JSON.parse(readFileSync(path.join(dir, 'turn-history.jsonl'), 'utf8'))).toEqual({ id: 'turn-0' });

    await rm(path.join(dir, 'filler'));
    await gate.check();
    expect(gate.holds()).toEqual([]);
    gate.stop();
  });
});
