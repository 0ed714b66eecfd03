import { z } from 'zod';

/**
 * The states of a device-code flow (RFC 8628) as the UI shows them: runner pairing and
 * operator sign-in both have them. The code and the address are meant to be shown.
 */
export const DeviceCodeWaitingSchema = z.object({
  phase: z.literal('waiting'),
  userCode: z.string(),
  verificationUri: z.string(),
  verificationUriComplete: z.string().nullable(),
  expiresAt: z.string(),
  intervalSeconds: z.number(),
  /** Set while polls fail: what went wrong and when the next try is. */
  trouble: z.object({ message: z.string(), retryAt: z.string() }).nullable(),
});
export type DeviceCodeWaiting = z.infer<typeof DeviceCodeWaitingSchema>;

/** Every state but `approved`, whose details differ by flow. */
export const deviceCodeStateSchemas = [
  z.object({ phase: z.literal('starting') }),
  DeviceCodeWaitingSchema,
  z.object({ phase: z.literal('denied') }),
  z.object({ phase: z.literal('expired') }),
  z.object({ phase: z.literal('canceled') }),
  z.object({ phase: z.literal('failed'), message: z.string() }),
] as const;
