import { describe, expect, it } from 'vitest';
import { TurnOutput } from '../../../main/core/exec/turn-output';

const event = (e: unknown) => Buffer.from(`${JSON.stringify(e)}\n`);
const say = (text: string) => event({ type: 'assistant', message: { content: [{ type: 'text', text }] } });
const result = event({ type: 'result', subtype: 'success', is_error: false, result: 'done', session_id: 's', usage: { input_tokens: 1, output_tokens: 1 } });

describe('TurnOutput', () => {
  it("keeps little of an event stream's raw bytes however much it prints, reads all of it, and marks nothing truncated", () => {
    const lines: string[] = [];
    const out = new TurnOutput('claude-stream', {
      maxOutputBytes: 4 * 1024 * 1024,
      tailBytes: 4096,
      knownSecrets: [],
      onTranscript: (l) => lines.push(l.text),
    });
    const kb = 'x'.repeat(1000);
    // 2 MB of assistant text in 64 kB pipe chunks, then the result event.
    const stream = Buffer.concat([...Array.from({ length: 2048 }, (_, i) => say(`${i} ${kb}`)), result]);
    for (let at = 0; at < stream.length; at += 65_536) out.onStdout(stream.subarray(at, at + 65_536));
    expect(out.stdout.totalBytes).toBe(stream.length);
    expect(out.stdout.retainedBytes).toBeLessThanOrEqual(256 * 1024);
    expect(out.truncated).toBe(false);
    expect(out.report()).toMatchObject({ ok: true, text: 'done' });
    expect(lines.some((l) => l.startsWith('2047 '))).toBe(true);
  });

  it('keeps plain output up to the cap and says it was cut past it', () => {
    const out = new TurnOutput('claude-text', { maxOutputBytes: 1024, tailBytes: 256, knownSecrets: [] });
    out.onStdout(Buffer.alloc(4096, 'a'));
    expect(out.stdout.retainedBytes).toBe(1024);
    expect(out.truncated).toBe(true);
  });
});
