import { describe, expect, it } from 'vitest';
import { claudeJsonReport, findClaudeResult } from '../../../main/core/exec/claude-result';
import { CodexEventReader } from '../../../main/core/exec/codex-events';
import { clampSummary } from '../../../main/core/exec/outcome';
import { CappedBuffer, TAIL_MARGIN_BYTES, TailBuffer, Throttle } from '../../../main/core/exec/output-capture';
import { parseProcStat, treeMembers } from '../../../main/core/exec/process-tree';
import { FakeClock } from '../../helpers/fake-clock';

// The executor's pure parts, without processes.

const lines = (...events: unknown[]) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';

describe('CodexEventReader', () => {
  it('reads events split anywhere, multibyte characters included', () => {
    const text = lines(
      { type: 'thread.started', thread_id: 't-1' },
      { type: 'item.completed', item: { type: 'error', message: 'Model metadata for `m` not found' } },
      { type: 'item.completed', item: { type: 'agent_message', text: 'héllo wörld ✓' } },
      { type: 'turn.completed', usage: { input_tokens: 5, output_tokens: 2 } },
    );
    const bytes = Buffer.from(text);
    const reader = new CodexEventReader(1 << 20);
    for (let i = 0; i < bytes.length; i += 7) reader.push(bytes.subarray(i, i + 7));
    expect(reader.end()).toEqual({ ok: true, text: 'héllo wörld ✓', sessionId: 't-1', usage: { input_tokens: 5, output_tokens: 2 } });
  });

  it('an error event followed by turn.completed was a recovered retry; without it, a failure', () => {
    const recovered = new CodexEventReader(1 << 20);
    recovered.push(Buffer.from(lines({ type: 'error', message: 'Reconnecting... 1/5' }, { type: 'turn.completed' })));
    expect(recovered.end().ok).toBe(true);
    const broken = new CodexEventReader(1 << 20);
    broken.push(Buffer.from(lines({ type: 'item.completed', item: { type: 'agent_message', text: 'partial' } }, { type: 'error', message: 'stream closed' })));
    expect(broken.end()).toMatchObject({ ok: false, text: 'codex turn failed: stream closed' });
  });

  it('skips overlong lines and non-JSON noise, keeps a final line without newline', () => {
    const reader = new CodexEventReader(100);
    reader.push(Buffer.from(`{"type":"item.completed","item":{"type":"agent_message","text":"${'y'.repeat(500)}"}}\n`));
    reader.push(Buffer.from('plain log line\n{"type":"item.completed","item":{"type":"agent_message","text":"short"}}'));
    expect(reader.end()).toMatchObject({ ok: null, text: 'short' });
  });

  it('counts malformed known events instead of trusting them', () => {
    const reader = new CodexEventReader(1 << 20);
    reader.push(Buffer.from(lines({ type: 'thread.started', thread_id: 42 })));
    expect(reader.end().sessionId).toBeUndefined();
    expect(reader.malformed).toBe(1);
  });
});

describe('claude JSON result', () => {
  it('finds the result object after other lines, and reads usage and denials', () => {
    const out = `warning: something\n${JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'ok',
      session_id: 's',
      usage: { input_tokens: 1, output_tokens: 2 },
      permission_denials: [{ tool_name: 'Bash' }],
    })}\n`;
    expect(claudeJsonReport(out)).toEqual({ ok: true, text: 'ok', sessionId: 's', usage: { input_tokens: 1, output_tokens: 2 }, deniedTools: ['Bash'] });
  });

  it('reads the session id from session_id or sessionId, as the seed', () => {
    expect(claudeJsonReport('{"type":"result","is_error":false,"sessionId":" camel "}').sessionId).toBe('camel');
    expect(claudeJsonReport('{"type":"result","is_error":false,"session_id":"snake","sessionId":"camel"}').sessionId).toBe('snake');
    expect(claudeJsonReport('{"type":"result","is_error":false}').sessionId).toBeUndefined();
  });

  it('no verdict when the output is not a result', () => {
    expect(findClaudeResult('Error: something broke')).toBeNull();
    expect(claudeJsonReport('{"type":"other"}')).toEqual({ ok: null, text: null });
  });
});

describe('output capture', () => {
  it('CappedBuffer keeps at most the cap however much comes in', () => {
    const cap = new CappedBuffer(1000);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    for (let i = 0; i < 320; i++) cap.push(chunk); // 20 MiB
    expect(cap.retainedBytes).toBe(1000);
    expect(cap.totalBytes).toBe(320 * 64 * 1024);
    expect(cap.truncated).toBe(true);
    expect(cap.text()).toBe('a'.repeat(1000));
  });

  it('TailBuffer never shows half a secret at the start of the tail', () => {
    const secret = 'tok-SECRETSECRETSECRET-123456';
    const tail = new TailBuffer(64);
    // Put the secret so that the raw tail window (64 + margin bytes) starts inside it.
    const filler = 'z'.repeat(64 + TAIL_MARGIN_BYTES - 10);
    tail.push(Buffer.from(`start ${secret}${filler}`));
    const shown = tail.render([secret]);
    expect(shown.length).toBeLessThanOrEqual(64);
    expect(shown).toBe('z'.repeat(64));
    // The same tail, a secret fully inside: redacted.
    const other = new TailBuffer(64);
    other.push(Buffer.from(`line with ${secret} end`));
    expect(other.render([secret])).toBe('line with [REDACTED] end');
  });

  it('Throttle: at most one call per interval, trailing, flushable', () => {
    const clock = new FakeClock();
    const calls: number[] = [];
    const t = new Throttle(clock, 250, () => calls.push(clock.now()));
    const t0 = clock.now();
    t.poke();
    clock.advance(0);
    for (let i = 0; i < 10; i++) {
      t.poke();
      clock.advance(50);
    }
    clock.advance(100);
    t.poke(); // due at 750 …
    t.flush(); // … but the final state goes out now
    clock.advance(1_000);
    expect(calls.map((c) => c - t0)).toEqual([0, 250, 500, 600]);
  });
});

describe('summary clamp', () => {
  it('keeps the note whole within the limit', () => {
    const s = clampSummary('x'.repeat(20_000), '[output truncated at 4194304 bytes]', 12_000);
    expect(s.length).toBe(12_000);
    expect(s.endsWith('\n[output truncated at 4194304 bytes]')).toBe(true);
    expect(clampSummary('short', null)).toBe('short');
  });
});

describe('process tree', () => {
  it('parses /proc stat lines with spaces and parentheses in the name', () => {
    expect(parseProcStat('1234 (my (odd) name) S 1 1234 1234 0 -1')).toEqual({ pid: 1234, ppid: 1, pgid: 1234, zombie: false });
    expect(parseProcStat('99 (sleep) Z 1 50 50')).toMatchObject({ zombie: true });
  });

  it('finds the group, descendants that left it, and skips zombies', () => {
    const all = [
      { pid: 100, ppid: 1, pgid: 100, zombie: false }, // root
      { pid: 101, ppid: 100, pgid: 100, zombie: false }, // child
      { pid: 102, ppid: 1, pgid: 100, zombie: false }, // orphan still in the group
      { pid: 103, ppid: 101, pgid: 103, zombie: false }, // setsid grandchild
      { pid: 104, ppid: 103, pgid: 103, zombie: false }, // its child
      { pid: 105, ppid: 1, pgid: 100, zombie: true }, // dead
      { pid: 200, ppid: 1, pgid: 200, zombie: false }, // unrelated
    ];
    expect(treeMembers(all, 100, false).sort((a, b) => a - b)).toEqual([100, 101, 102, 103, 104]);
    // After the root was reaped its pid may be reused: only its group counts.
    const reaped = all.filter((p) => p.pid !== 100).concat({ pid: 100, ppid: 1, pgid: 300, zombie: false });
    expect(treeMembers(reaped, 100, true).sort((a, b) => a - b)).toEqual([101, 102, 103, 104]);
  });
});
