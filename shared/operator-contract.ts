import type { z } from 'zod';

/**
 * The operator side of the contract (sign-in, build requests and their lifecycle),
 * kept in its own file so the runner and the operator surfaces grow independently.
 * Merged into `commands` and `events` in contract.ts.
 */
export const operatorCommands = {} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;

export const operatorEvents = {} as const satisfies Record<string, z.ZodType>;
