import type { z } from 'zod';
import { commands, isCommandName, type CommandName, type CommandOutput, type Commands } from '../../../shared/contract';
import { describeZodError, TransportErrorCode, type Result } from '../../../shared/result';
import type { Logger } from './ports';
import { errorText } from '../../../shared/errors';

/** A handler may throw this to answer `{ ok: false }` with its own code. */
export class CommandFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'CommandFailure';
  }
}

/**
 * Who sent a command: the operator's window (the Electron window, a browser tab with its
 * session cookie) or a script (the Bearer token, the token file). Only a window may widen
 * what a turn can reach. A caller that does not say is a script.
 */
export type Caller = 'window' | 'script';

/** Handlers see the parsed (post-transform) input and return the contract's output. */
export type Handlers = {
  [K in CommandName]: (input: z.output<Commands[K]['input']>, caller: Caller) => Promise<CommandOutput<K>> | CommandOutput<K>;
};

export type Invoke = (name: unknown, input: unknown, caller?: Caller) => Promise<Result<unknown>>;

/**
 * The one place a command from any transport is checked and run: the name must be in
 * the contract, the input is parsed from `unknown` with the contract's schema, and the
 * answer is always data.
 */
export function createDispatcher(handlers: Handlers, log: Logger): Invoke {
  return async (name, input, caller = 'script') => {
    if (!isCommandName(name)) {
      return {
        ok: false,
        error: { code: TransportErrorCode.unknownCommand, message: `unknown command ${typeof name === 'string' ? name.slice(0, 100) : typeof name}` },
      };
    }
    const spec = commands[name];
    const parsed = spec.input.safeParse(input);
    if (!parsed.success) {
      return { ok: false, error: { code: TransportErrorCode.invalidInput, message: `${name}: ${describeZodError(parsed.error)}` } };
    }
    try {
      const handler = handlers[name] as (input: unknown, caller: Caller) => unknown;
      const value = await handler(parsed.data, caller);
      return { ok: true, value };
    } catch (error) {
      if (error instanceof CommandFailure) {
        return { ok: false, error: { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) } };
      }
      log.error('command failed', { command: name, error: errorText(error) });
      return { ok: false, error: { code: TransportErrorCode.internal, message: `${name} failed; see the log for details` } };
    }
  };
}
