import { describe, expect, it } from 'vitest';
import type { TranscriptLine } from '../../shared/transcript';
import { applyTranscriptUpdates, keepRunning, mergeLines, TRANSCRIPT_WINDOW_LINES, withTranscriptView } from '../../renderer/src/store/transcripts-slice';

const line = (n: number, text = `line ${n}`, open?: boolean): TranscriptLine => ({ n, kind: 'text', text, ...(open ? { open } : {}) });

describe('the transcripts slice', () => {
  it('merges by number: appends, replaces a growing line, puts a late one in place', () => {
    const merged = mergeLines([line(0), line(2, 'He', true)], [line(2, 'Hello'), line(3), line(1)]);
    expect(merged.map((l) => `${l.n}:${l.text}`)).toEqual(['0:line 0', '1:line 1', '2:Hello', '3:line 3']);
  });

  it('keeps a window of the newest lines per turn and counts the rest (dropped or skipped by the host) as earlier', () => {
    const many = Array.from({ length: TRANSCRIPT_WINDOW_LINES + 10 }, (_, n) => line(n));
    const slice = applyTranscriptUpdates({}, [{ id: 'a', lines: many, skipped: 5 }]);
    expect(slice.a!.lines).toHaveLength(TRANSCRIPT_WINDOW_LINES);
    expect(slice.a!.lines[0]!.n).toBe(10);
    expect(slice.a!.earlier).toBe(15);
  });

  it('joins what turns:transcript answered with what streamed meanwhile, and lets finished turns go', () => {
    let slice = applyTranscriptUpdates({}, [{ id: 'a', lines: [line(7, 'streamed')], skipped: 0 }]);
    slice = withTranscriptView(slice, { id: 'a', lines: [line(5), line(6)], earlier: 5 });
    expect(slice.a).toEqual({ lines: [line(5), line(6), line(7, 'streamed')], earlier: 5 });
    expect(keepRunning(slice, ['b'])).toBe(slice);
    expect(keepRunning(slice, ['a'])).toEqual({});
  });
});
