import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState } from '../../shared/runner';
import type { TranscriptView } from '../../shared/transcript';
import type { TurnView } from '../../shared/turns';
import { transcriptFileName } from '../../main/core/work/turn-transcripts';
import { startHarness, type Harness } from './core-harness';

// A turn that fails or is canceled keeps what it streamed: every line in its transcript
// file, the newest to view once it is over, and its output's tail in the history record.

const STREAMING = fileURLToPath(new URL('../fixtures/streaming-runtime.mjs', import.meta.url));

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

async function paired(): Promise<Harness> {
  const harness = await startHarness({ core: { runtimeBinaries: { claude: STREAMING, codex: STREAMING } }, emulator: { config: { longPollMaxMs: 1000 } } });
  const pairing = await harness.invoke<PairingState>('pairing:start');
  if (pairing.phase !== 'waiting') throw new Error('not waiting');
  harness.emu.admin.approvePairing(pairing.userCode);
  await harness.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true);
  return harness;
}

/** The texts of a turn's transcript file, in order. */
function fileTexts(harness: Harness, id: string): string[] {
  const file = path.join(harness.dataDir, 'transcripts', transcriptFileName(id));
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((row) => (JSON.parse(row) as { text: string }).text);
}

async function expectKept(harness: Harness, id: string, n: number): Promise<void> {
  const all = Array.from({ length: n }, (_, i) => `line ${i + 1} of ${n}`);
  expect(fileTexts(harness, id).filter((t) => t.startsWith('line '))).toEqual(all);
  // stderr's last line, open (no newline) when the turn ended, closed and kept too.
  expect(fileTexts(harness, id)).toEqual(expect.arrayContaining(['warming up', 'the last words, no newline']));
  const view = await harness.invoke<TranscriptView>('turns:transcript', { id });
  expect(view.lines.map((l) => l.text)).toEqual(expect.arrayContaining(all));
  const record = await harness.invoke<TurnView>('turns:detail', { id });
  expect(record?.outputTail).toContain(`line ${n} of ${n}`);
  expect(record?.outputTail).toContain('the last words, no newline');
}

describe('a turn that does not succeed keeps what it streamed', () => {
  it('a failed turn: its transcript on disk and to view, and its output tail in the history record', async () => {
    h = await paired();
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'lines:30 then:fail' });
    const done = await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === unit.id));
    expect(done.finished.find((t) => t.id === unit.id)?.phase).toBe('failed');
    await expectKept(h, unit.id, 30);
  });

  it('a canceled turn: the same, for what it streamed before the cancel', async () => {
    h = await paired();
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'lines:30 then:hang' });
    await h.waitForEvent('turns:transcript', (updates) => updates.some((u) => u.id === unit.id && u.lines.some((l) => l.text.startsWith('the last words'))));
    await h.invoke('turns:cancel', { id: unit.id });
    const done = await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === unit.id));
    expect(done.finished.find((t) => t.id === unit.id)?.phase).toBe('canceled');
    await expectKept(h, unit.id, 30);
  });
});
