import { z } from 'zod';

/** One capacity reading, about every 5 s; the window charts the last hour of them. */
export const CapacitySampleSchema = z.object({
  t: z.number(),
  cpuPercent: z.number().min(0).max(100),
  memTotalBytes: z.number().min(0),
  memFreeBytes: z.number().min(0),
  rssBytes: z.number().min(0),
  activeSessions: z.number().int().min(0),
  maxSessions: z.number().int().min(1),
});
export type CapacitySample = z.infer<typeof CapacitySampleSchema>;

export const SAMPLE_PERIOD_MS = 5_000;
export const SAMPLE_WINDOW = 720;
