import { describe, expect, it } from 'vitest';
import type { TranscriptLine } from '../../../shared/transcript';
import { TRANSCRIPT_LINE_MAX } from '../../../shared/transcript';
import { ClaudeStreamReader } from '../../../main/core/exec/claude-stream';
import { CodexEventReader } from '../../../main/core/exec/codex-events';
import { appServerTranscript } from '../../../main/core/exec/codex-app-server/transcript';
import { TranscriptWriter } from '../../../main/core/exec/transcript-writer';

const SECRET = 'tok_live_SECRET_0123456789abcdef';

/** The lines as the window would hold them: the newest copy of each number. */
function collect(secrets: readonly string[] = []) {
  const emitted: TranscriptLine[] = [];
  const writer = new TranscriptWriter((line) => emitted.push(line), secrets);
  const lines = () => {
    const byN = new Map<number, TranscriptLine>();
    for (const line of emitted) byN.set(line.n, line);
    return [...byN.values()].sort((a, b) => a.n - b.n);
  };
  return { writer, emitted, lines };
}

const jsonl = (...events: unknown[]) => Buffer.from(events.map((e) => `${JSON.stringify(e)}\n`).join(''));

describe('TranscriptWriter', () => {
  it('numbers whole texts one line per newline and splits overlong lines', () => {
    const { writer, lines } = collect();
    writer.line('text', 'first\nsecond\n');
    writer.line('output', 'x'.repeat(TRANSCRIPT_LINE_MAX + 5));
    expect(lines().map((l) => [l.n, l.kind, l.text.length])).toEqual([
      [0, 'text', 5],
      [1, 'text', 6],
      [2, 'output', TRANSCRIPT_LINE_MAX],
      [3, 'output', 5],
    ]);
  });

  it('shows a streaming line only up to its last blank, so a secret never shows half-written', () => {
    const { writer, emitted, lines } = collect([SECRET]);
    const text = `the key is ${SECRET} and more`;
    for (let i = 0; i < text.length; i += 3) writer.delta('m1', 'text', text.slice(i, i + 3));
    writer.finish('m1', 'text', text);
    for (const line of emitted) {
      expect(line.text).not.toContain(SECRET.slice(0, 8));
      expect(line.text.length).toBeLessThanOrEqual(TRANSCRIPT_LINE_MAX);
    }
    expect(emitted.some((l) => l.open)).toBe(true);
    // finish after streaming closes the line: the whole text is not written a second time
    expect(lines()).toEqual([{ n: 0, kind: 'text', text: 'the key is [REDACTED] and more' }]);
  });

  it('closes a streamed line at each newline and writes an item that did not stream whole', () => {
    const { writer, lines } = collect();
    writer.delta('a', 'output', 'one\ntw');
    writer.delta('a', 'output', 'o\n');
    writer.finish('a', 'output', 'one\ntwo\n');
    writer.finish('b', 'text', 'never streamed');
    writer.end();
    expect(lines().map((l) => [l.kind, l.text, l.open ?? false])).toEqual([
      ['output', 'one', false],
      ['output', 'two', false],
      ['text', 'never streamed', false],
    ]);
  });
});

describe('ClaudeStreamReader (stream-json)', () => {
  const result = {
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: 'done: 2 files',
    session_id: 'sess-9',
    total_cost_usd: 0.5,
    usage: { input_tokens: 3, output_tokens: 4 },
  };

  it('writes text, thinking, commands, file edits and tool results, and keeps the result as the report', () => {
    const { writer, lines } = collect();
    const reader = new ClaudeStreamReader(1 << 20, writer);
    const stream = jsonl(
      { type: 'system', subtype: 'init', model: 'claude-x' },
      { type: 'user', message: { content: 'the prompt' } },
      {
        type: 'assistant',
        message: {
          content: [
            { type: 'thinking', thinking: 'look first' },
            { type: 'text', text: 'Listing files.' },
            { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls -la' } },
          ],
        },
      },
      { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.ts\nb.ts' }] } },
      { type: 'assistant', message: { content: [{ type: 'tool_use', id: 't2', name: 'Edit', input: { file_path: '/w/a.ts' } }, { type: 'odd' }] } },
      result,
    );
    // Split mid-line: the reader joins what arrives in pieces.
    reader.push(stream.subarray(0, 50));
    reader.push(stream.subarray(50));
    const report = reader.end('');
    expect(lines().map((l) => `${l.kind}:${l.text}`)).toEqual([
      'note:claude started (claude-x)',
      'reasoning:look first',
      'text:Listing files.',
      'command:$ ls -la',
      'output:a.ts',
      'output:b.ts',
      'file:edit /w/a.ts',
    ]);
    expect(report).toMatchObject({ ok: true, text: 'done: 2 files', sessionId: 'sess-9', usage: { input_tokens: 3, output_tokens: 4, cost_usd: 0.5 } });
  });

  it('reads the result after more output than the capture keeps, and falls back to a plain JSON result', () => {
    const reader = new ClaudeStreamReader(1 << 20);
    for (let i = 0; i < 200; i++) reader.push(jsonl({ type: 'assistant', message: { content: [{ type: 'text', text: 'y'.repeat(50_000) }] } }));
    reader.push(jsonl({ ...result, is_error: true, result: 'boom' }));
    expect(reader.end('')).toMatchObject({ ok: false, text: 'boom' });
    expect(new ClaudeStreamReader(1 << 20).end(JSON.stringify(result))).toMatchObject({ ok: true, text: 'done: 2 files' });
  });
});

describe('CodexEventReader (codex exec --json)', () => {
  it('writes messages, reasoning, a command with its output and exit code, and file changes', () => {
    const { writer, lines } = collect();
    const reader = new CodexEventReader(1 << 20, writer);
    reader.push(
      jsonl(
        { type: 'thread.started', thread_id: 'th-1' },
        { type: 'item.completed', item: { id: 'r', type: 'reasoning', text: 'plan it' } },
        { type: 'item.started', item: { id: 'c', type: 'command_execution', command: 'npm test', status: 'in_progress' } },
        { type: 'item.completed', item: { id: 'c', type: 'command_execution', command: 'npm test', aggregated_output: 'ok 1\n', exit_code: 2 } },
        {
          type: 'item.completed',
          item: {
            id: 'f',
            type: 'file_change',
            changes: [
              { path: 'src/a.ts', kind: 'update' },
              { path: 'b.md', kind: 'add' },
            ],
          },
        },
        { type: 'item.completed', item: { id: 'm', type: 'agent_message', text: 'all done' } },
        { type: 'turn.completed', usage: { input_tokens: 5, output_tokens: 6 } },
      ),
    );
    const report = reader.end();
    expect(lines().map((l) => `${l.kind}:${l.text}${l.exitCode !== undefined ? `#${l.exitCode}` : ''}`)).toEqual([
      'reasoning:plan it',
      'command:$ npm test',
      'output:ok 1',
      'command:exit 2#2',
      'file:update src/a.ts',
      'file:add b.md',
      'text:all done',
    ]);
    expect(report).toMatchObject({ ok: true, text: 'all done', sessionId: 'th-1' });
  });

  it('keeps the answer when an item does not fit the transcript', () => {
    const reader = new CodexEventReader(1 << 20, collect().writer);
    reader.push(jsonl({ type: 'item.completed', item: { id: 'm', type: 'agent_message', text: 'kept', changes: 'not a list' } }, { type: 'turn.completed' }));
    expect(reader.end()).toMatchObject({ ok: true, text: 'kept' });
  });
});

describe('app-server item notifications', () => {
  const base = { threadId: 'th', turnId: 'tu' };
  it('streams message and reasoning deltas, commands with output and exit code, and file change paths', () => {
    const { writer, emitted, lines } = collect();
    const send = (method: string, params: Record<string, unknown>) => appServerTranscript(method, { ...base, ...params }, writer);
    send('item/reasoning/summaryTextDelta', { itemId: 'r1', summaryIndex: 0, delta: 'Thinking about ' });
    send('item/reasoning/summaryTextDelta', { itemId: 'r1', summaryIndex: 0, delta: 'it' });
    send('item/completed', { item: { type: 'reasoning', id: 'r1', summary: ['Thinking about it'], content: [] } });
    send('item/started', { item: { type: 'commandExecution', id: 'c1', command: 'cat x', status: 'inProgress' } });
    send('item/commandExecution/outputDelta', { itemId: 'c1', delta: 'line a\nline b\n' });
    send('item/completed', { item: { type: 'commandExecution', id: 'c1', command: 'cat x', aggregatedOutput: 'line a\nline b\n', exitCode: 0 } });
    send('item/completed', { item: { type: 'fileChange', id: 'f1', changes: [{ path: 'a.ts', kind: { type: 'update', move_path: null }, diff: '…' }] } });
    send('item/agentMessage/delta', { itemId: 'm1', delta: 'Hello ' });
    const openSeen = emitted.at(-1);
    send('item/agentMessage/delta', { itemId: 'm1', delta: 'world' });
    send('item/completed', { item: { type: 'agentMessage', id: 'm1', text: 'Hello world' } });
    send('item/unknownThing', { itemId: 'x' });
    expect(openSeen).toMatchObject({ kind: 'text', text: 'Hello', open: true });
    expect(lines().map((l) => `${l.kind}:${l.text}${l.exitCode !== undefined ? `#${l.exitCode}` : ''}`)).toEqual([
      'reasoning:Thinking about it',
      'command:$ cat x',
      'output:line a',
      'output:line b',
      'command:exit 0#0',
      'file:update a.ts',
      'text:Hello world',
    ]);
  });
});
