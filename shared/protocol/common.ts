import { z } from 'zod';

/** Error body every emulator endpoint answers with on 4xx/5xx. [v1] */
export const ErrorBodySchema = z.object({
  error: z.string().min(1),
  message: z.string().optional(),
});

/** ISO-8601 timestamps as the server renders them; kept lenient so a server that adds an offset still parses. */
export const IsoTimeSchema = z.string().min(1).max(64);

/** Rost ids are UUIDs wherever the seed says so (`uuid` in the Forge schemas). [seed] */
export const UuidSchema = z.uuid();

/** An id the runner only echoes back; tolerant so a non-UUID server id still works. */
export const OpaqueIdSchema = z.string().min(1).max(200);

export const PLATFORMS = ['darwin', 'win32', 'linux'] as const;
export const PlatformSchema = z.enum(PLATFORMS);
