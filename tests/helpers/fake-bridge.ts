import type { CommandInput, CommandName, CommandOutput } from '../../shared/contract';
import type { CommandError, Result } from '../../shared/result';
import type { Bridge } from '../../renderer/src/bridge';

/** A bridge that answers from a table and records what it was asked; an Error answer is a failure (with `field`, when given). */
export function fakeBridge(
  answer: (name: CommandName, input: unknown) => unknown,
  field?: string,
): { bridge: Bridge; calls: { name: string; input: unknown }[] } {
  const calls: { name: string; input: unknown }[] = [];
  const bridge: Bridge = {
    transport: 'websocket',
    async invoke<K extends CommandName>(name: K, input?: CommandInput<K>): Promise<Result<CommandOutput<K>>> {
      calls.push({ name, input });
      const value = answer(name, input);
      if (!(value instanceof Error)) return { ok: true, value: value as CommandOutput<K> };
      const error: CommandError = { code: 'failed', message: value.message, ...(field ? { field } : {}) };
      return { ok: false, error };
    },
    onEvents: () => () => {},
    onConnection: () => () => {},
    connect: () => {},
  };
  return { bridge, calls };
}
