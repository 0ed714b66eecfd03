import { z } from 'zod';
import { SECHROOM_LEASE_TTL_MS } from '../../shared/protocol/sechroom-lease';

/** Work Layer tunables. Tests shrink or inspect them; the CLI keeps the protocol defaults. */
export interface SechroomConfig {
  /** Lease TTL from the claim and from each heartbeat (120 s, the seed's constant). */
  leaseTtlMs: number;
  /** Access-token lifetime of `sechroom`-scope tokens; null = the emulator-wide `accessTokenTtlMs`. */
  accessTokenTtlMs: number | null;
  /** `suggestedClaimDelayMs` step between competing instances (rank × step). */
  claimStaggerMs: number;
  /** Most offers one `dispatch-offers` answer lists. */
  maxOffers: number;
  /** Longest `dispatch-offers?waitMs=` hold [v1]; 0 turns holding off. */
  offerWaitMaxMs: number;
  /** Serve `lease-notices` [v1]; false plays a Work Layer without it (404). */
  leaseNotices: boolean;
}

export const DEFAULT_SECHROOM_CONFIG: SechroomConfig = {
  leaseTtlMs: SECHROOM_LEASE_TTL_MS,
  accessTokenTtlMs: null,
  claimStaggerMs: 500,
  maxOffers: 50,
  offerWaitMaxMs: 25_000,
  leaseNotices: true,
};

export const SechroomConfigPatchSchema = z.strictObject({
  leaseTtlMs: z.number().int().min(50).max(3_600_000).exactOptional(),
  accessTokenTtlMs: z.number().int().positive().nullable().exactOptional(),
  claimStaggerMs: z.number().int().min(0).max(60_000).exactOptional(),
  maxOffers: z.number().int().min(1).max(500).exactOptional(),
  offerWaitMaxMs: z.number().int().min(0).max(600_000).exactOptional(),
  leaseNotices: z.boolean().exactOptional(),
});
export type SechroomConfigPatch = z.infer<typeof SechroomConfigPatchSchema>;
