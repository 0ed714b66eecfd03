import { describe, expect, it } from 'vitest';
import { createDispatcher, CommandFailure, type Handlers } from '../../main/core/base/dispatch';
import { failedUnit, failedView, resultKey } from '../../main/core/planes/rost/unit-result';
import { ERROR_TEXT_MAX, errorText } from '../../shared/errors';
import { RESULT_SUMMARY_MAX, ResultRequestSchema } from '../../shared/protocol';
import { RUNTIME_IDS, RUNTIME_NAMES, runtimeLabel, wireRuntime } from '../../shared/runtimes';
import { TurnViewSchema } from '../../shared/turns';
import { testLogging } from '../helpers/test-logger';

describe('errorText: the one line shown for anything thrown', () => {
  it.each([
    ['an Error', new Error('connection reset'), 'connection reset'],
    ['a multi-line message (first non-empty line)', new Error('\n  spawn failed  \nstack-ish detail\nmore'), 'spawn failed'],
    ['a string', 'plain words', 'plain words'],
    ['a number', 42, '42'],
    ['a system error whose message lacks its code', Object.assign(new Error('disk full'), { code: 'ENOSPC' }), 'ENOSPC: disk full'],
    [
      'a Node system error (the code is in the message)',
      Object.assign(new Error("EACCES: permission denied, open '/x'"), { code: 'EACCES' }),
      "EACCES: permission denied, open '/x'",
    ],
    ['an app error code is not prefixed', Object.assign(new Error('The keychain is locked.'), { code: 'keychain_failed' }), 'The keychain is locked.'],
    ['an object with only a code', { code: 'ECONNREFUSED' }, 'ECONNREFUSED'],
    ['an object with a message', { message: 'from a plain object' }, 'from a plain object'],
    ['an Error without a message', new TypeError(''), 'TypeError'],
    ['null', null, 'unknown error'],
    ['undefined', undefined, 'unknown error'],
    ['a plain object', { what: 'no message' }, 'unknown error'],
  ])('%s', (_what, thrown, text) => {
    expect(errorText(thrown)).toBe(text);
  });

  it('clips very long text to ERROR_TEXT_MAX with an ellipsis', () => {
    const text = errorText(new Error('x'.repeat(5_000)));
    expect(text).toHaveLength(ERROR_TEXT_MAX);
    expect(text.endsWith('…')).toBe(true);
  });

  it('never throws, whatever it is given', () => {
    const hostile = {
      get message(): string {
        throw new Error('boom');
      },
    };
    expect(errorText(Symbol('s'))).toBe('unknown error');
    expect(errorText(Object.create(null))).toBe('unknown error');
    expect(errorText(hostile)).toBe('unknown error');
  });
});

describe('one refusal type for commands', () => {
  const handlers = (fn: () => unknown) => ({ 'runner:status': fn }) as unknown as Handlers;

  it('a CommandFailure anywhere in a handler becomes { ok: false } with its code, message and field', async () => {
    const { log, entries } = testLogging();
    const invoke = createDispatcher(
      handlers(() => {
        throw new CommandFailure('already_paired', 'This machine is already paired. Unpair it first.', 'url');
      }),
      log,
    );
    expect(await invoke('runner:status', undefined)).toEqual({
      ok: false,
      error: { code: 'already_paired', message: 'This machine is already paired. Unpair it first.', field: 'url' },
    });
    expect(entries).toEqual([]);
  });

  it('anything else is logged with its error text and answered as internal, without the detail', async () => {
    const { log, entries } = testLogging();
    const invoke = createDispatcher(
      handlers(async () => {
        throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
      }),
      log,
    );
    expect(await invoke('runner:status', undefined)).toEqual({
      ok: false,
      error: { code: 'internal', message: 'runner:status failed; see the log for details' },
    });
    expect(entries.map((e) => [e.level, e.msg, e.data])).toEqual([['error', 'command failed', { command: 'runner:status', error: 'ENOSPC: disk full' }]]);
  });
});

describe('one shape for a failed unit', () => {
  it('is a valid result for the control plane and a valid change to the row, both saying why', () => {
    const failed = failedUnit({ id: 'u1', attempt: 2 }, 'start failed: 409 conflict\nmore detail', 'codex');
    expect(ResultRequestSchema.safeParse(failed.result).success).toBe(true);
    expect(failed.result).toEqual({
      status: 'failed',
      summary: 'start failed: 409 conflict\nmore detail',
      log_ref: 'runner-local:u1',
      runtime: 'codex-cli',
      idempotency_key: 'u1:2',
    });
    expect(failed.view).toEqual({ phase: 'failed', summary: 'start failed: 409 conflict\nmore detail', reason: 'start failed: 409 conflict' });
    expect(TurnViewSchema.partial().safeParse(failed.view).success).toBe(true);
  });

  it('has no runtime when none was chosen, defaults the attempt to 1, redacts known secrets and clips the summary', () => {
    const secret = 'rst_live_0123456789abcdef';
    const failed = failedUnit({ id: 'u2' }, `the server said ${secret} ${'x'.repeat(RESULT_SUMMARY_MAX)}`, null, [secret]);
    expect(failed.result).not.toHaveProperty('runtime');
    expect(failed.result.idempotency_key).toBe('u2:1');
    expect(failed.result.summary).not.toContain(secret);
    expect(failed.result.summary.length).toBeLessThanOrEqual(RESULT_SUMMARY_MAX);
    expect(resultKey({ id: 'u2', attempt: 3 })).toBe('u2:3');
  });

  it("a row that fails for the runner's own reason keeps what the run said", () => {
    expect(failedView('the result could not be saved')).toEqual({ phase: 'failed', reason: 'the result could not be saved' });
  });
});

describe('one table of runtime names', () => {
  it('names every runtime for the window, the wire and PATH', () => {
    expect(RUNTIME_IDS.map((id) => [runtimeLabel(id), wireRuntime(id), RUNTIME_NAMES[id].binary])).toEqual([
      ['Claude Code', 'claude-cli', 'claude'],
      ['Codex', 'codex-cli', 'codex'],
    ]);
  });

  it("every wire name is one the protocol's result schema accepts", () => {
    for (const id of RUNTIME_IDS) {
      expect(ResultRequestSchema.shape.runtime.safeParse(wireRuntime(id)).success).toBe(true);
    }
  });
});
