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

/** `POST /api/runner/pairing/claim` body. [v1, RFC 8628 shaped] */
export const PairingClaimRequestSchema = z.object({
  pairing_id: OpaqueIdSchema,
});

/** Runner credentials. The secret is a bearer token: never display, log or send to a renderer. [seed] */
export const PairingClaimResponseSchema = z.object({
  runner_id: OpaqueIdSchema,
  runner_secret: z.string().min(16),
  tenant_id: OpaqueIdSchema.optional(),
  name: z.string().optional(),
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

