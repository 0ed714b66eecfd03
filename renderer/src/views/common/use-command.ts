import { useCallback, useEffect, useRef, useState } from 'react';
import type { CommandInput, CommandName, CommandOutput } from '../../../../shared/contract';
import type { CommandError, Result } from '../../../../shared/result';
import { getBridge } from '../../bridge/instance';
import { useHostStore } from '../../store';
import { scopedInput } from '../../store/profiles-slice';

export interface CommandState<K extends CommandName> {
  run: (input?: CommandInput<K>) => Promise<Result<CommandOutput<K>>>;
  pending: boolean;
  error: CommandError | null;
  clearError: () => void;
}

/**
 * Runs one contract command for a view: whether it is in flight (to disable the button
 * that started it) and its error, if any, to show in one line beside that button.
 * A per-profile command goes to the profile the window shows.
 */
export function useCommand<K extends CommandName>(name: K): CommandState<K> {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<CommandError | null>(null);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const run = useCallback(
    async (input?: CommandInput<K>) => {
      setPending(true);
      setError(null);
      const result = await getBridge().invoke(name, scopedInput(name, input, useHostStore.getState().profile));
      if (mounted.current) {
        setPending(false);
        setError(result.ok ? null : result.error);
      }
      return result;
    },
    [name],
  );
  const clearError = useCallback(() => setError(null), []);
  return { run, pending, error, clearError };
}
