import { z } from 'zod';
import { OpaqueIdSchema, PlatformSchema } from './common';

/** `POST /api/runner/pairing/start` body. [v1; seed sends {name, platform}] */
export const PairingStartRequestSchema = z.object({
  name: z.string().trim().min(1).max(200),
  platform: PlatformSchema,
  runner_version: z.string().trim().min(1).max(64).optional(),
  hostname: z.string().trim().min(1).max(255).optional(),
});
export type PairingStartRequest = z.infer<typeof PairingStartRequestSchema>;

export const PairingStartResponseSchema = z.object({
  pairing_id: OpaqueIdSchema,
  user_code: z.string().min(1),
  verification_uri: z.string().min(1),
  verification_uri_complete: z.string().min(1).optional(),
  expires_in: z.number().int().positive(),
  /** Seconds between claim polls; 0 is allowed for test servers. */
  interval: z.number().int().nonnegative().default(5),
});
export type PairingStartResponse = z.infer<typeof PairingStartResponseSchema>;

/** `POST /api/runner/pairing/claim` body after our own start: the pairing id. [v1, RFC 8628 shaped] */
export const PairingClaimByIdSchema = z.object({
  pairing_id: OpaqueIdSchema,
});
/**
 * Claim body with a user code an operator got elsewhere (`--user-code`, the web page, or the
 * authenticated `runner.pairing.start`, which answers only `user_code` in the seed). The runner
 * says who it is, for a code that was issued without a name. [seed: claims by user code; v1 body]
 */
export const PairingClaimByCodeSchema = z.object({
  user_code: z.string().trim().min(1).max(64),
  name: z.string().trim().min(1).max(200).exactOptional(),
  platform: PlatformSchema.exactOptional(),
  runner_version: z.string().trim().min(1).max(64).exactOptional(),
  hostname: z.string().trim().min(1).max(255).exactOptional(),
});
export type PairingClaimByCode = z.infer<typeof PairingClaimByCodeSchema>;

/**
 * Output of the authenticated command `runner.pairing.start` (`{ name, platform }`). The seed
 * reads only `user_code`; the rest is used when a server sends it. [seed: user_code; v1: rest]
 */
export const RunnerPairingStartOutputSchema = z.object({
  user_code: z.string().trim().min(1).max(64),
  pairing_id: OpaqueIdSchema.optional(),
  verification_uri: z.string().min(1).optional(),
  verification_uri_complete: z.string().min(1).optional(),
  expires_in: z.number().int().positive().optional(),
  interval: z.number().int().nonnegative().optional(),
});
export type RunnerPairingStartOutput = z.infer<typeof RunnerPairingStartOutputSchema>;

/** Runner credentials. The secret is a bearer token: never display, log or send to a renderer. [seed] */
export const PairingClaimResponseSchema = z.object({
  runner_id: OpaqueIdSchema,
  runner_secret: z.string().min(16),
  tenant_id: OpaqueIdSchema.optional(),
  name: z.string().optional(),
  /** The tenant's display name, shown instead of its id. [v1] */
  tenant_name: z.string().trim().min(1).max(200).optional(),
});
export type PairingClaimResponse = z.infer<typeof PairingClaimResponseSchema>;

export const PAIRING_ERROR_CODES = ['authorization_pending', 'slow_down', 'access_denied', 'expired_token'] as const;
export const PairingErrorCodeSchema = z.enum(PAIRING_ERROR_CODES);

/** 400 body of a claim poll that has no credentials (yet). */
export const PairingClaimErrorSchema = z.object({
  error: PairingErrorCodeSchema,
  message: z.string().optional(),
  /** Present with slow_down: the interval (seconds) to use from now on. [v1] */
  interval: z.number().int().nonnegative().optional(),
});
