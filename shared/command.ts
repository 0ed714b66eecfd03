import { z } from 'zod';

/** Commands that take nothing accept `undefined` (IPC) or `{}` (JSON over WebSocket). */
export const NoInput = z.union([z.undefined(), z.null(), z.object({}).strict()]).transform(() => undefined);

/** One contract entry: the input schema the host parses, the output schema it answers with. */
export function command<I extends z.ZodType, O extends z.ZodType>(input: I, output: O) {
  return { input, output };
}
