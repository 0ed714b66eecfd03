// The lending gate's view: which terms hold this machine's new work back now, in the
// operator's words, and when each would let go (see main/core/lending/).
import { z } from 'zod';

export const LendingHoldKindSchema = z.enum(['schedule', 'idle', 'battery', 'cpu', 'disk']);

export const LendingHoldSchema = z.object({
  kind: LendingHoldKindSchema,
  /** "Outside your lending hours — resumes Mon 09:00" */
  reason: z.string(),
  /** When the hold lets go by itself (epoch ms), or null when it waits on the machine (power, CPU, disk, input). */
  resumesAt: z.number().nullable(),
});
export type LendingHold = z.infer<typeof LendingHoldSchema>;

export const LendingViewSchema = z.object({
  /** Empty: the terms let new work in. */
  holds: z.array(LendingHoldSchema),
  /** The operator is using the machine (the ceilings while in use apply). */
  active: z.boolean(),
  /** Turns at once on this machine now, over every profile. */
  turnCap: z.number().int().min(1),
});
export type LendingView = z.infer<typeof LendingViewSchema>;
