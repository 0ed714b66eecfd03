/** Tunables of one emulator instance. Tests shrink the intervals; the CLI keeps the protocol defaults. */
export interface EmulatorConfig {
  /** `claim.long_poll_max_ms` advertised on heartbeats; 0 turns long-poll off. */
  longPollMaxMs: number;
  /** Advertise `claim.carries_heartbeat` and record a heartbeat a claim carries [v1]; false plays a server without it. */
  claimCarriesHeartbeat: boolean;
  /** Advertise `claim.cancel_notices` and answer a held claim early with a cancel [v1]; false plays a server without it. */
  claimCancelNotices: boolean;
  /** `next_heartbeat_ms` hint on heartbeats. */
  nextHeartbeatMs: number;
  /** Default `lease.heartbeat_ms` of a claimed unit. */
  leaseHeartbeatMs: number;
  /** A lease lives this many lease-heartbeat intervals without a heartbeat. */
  leaseTtlFactor: number;
  defaultTimeoutMs: number;
  /** Work orders whose running lease expired are handed out again up to this many attempts in all. */
  maxAttempts: number;
  caps: { tenant: number; project: number; defaultAccount: number };
  pairingIntervalSec: number;
  pairingExpiresInSec: number;
  oauthIntervalSec: number;
  oauthExpiresInSec: number;
  accessTokenTtlMs: number;
  refreshTokenTtlMs: number;
  /** The unit MCP token lives for the unit's timeout plus this grace, and dies with the unit. */
  mcpTokenGraceMs: number;
  confirmationTtlMs: number;
  sessionTtlMs: number;
  /** How a claim with nothing to hand out is answered. */
  emptyClaim: '204' | 'empty_object';
  /** Hand a runner only units its claim's `runtimes` can run [v1]; false plays a server that ignores the field. */
  honourClaimRuntimes: boolean;
  /** Answer a pairing claim with runner_id and runner_secret only (a server that omits tenant_id and name). */
  pairingClaimCredentialsOnly: boolean;
  bodyLimitBytes: number;
  rateLimit: { maxFailures: number; windowMs: number };
}

export const DEFAULT_CONFIG: EmulatorConfig = {
  longPollMaxMs: 60_000,
  claimCarriesHeartbeat: true,
  claimCancelNotices: true,
  nextHeartbeatMs: 30_000,
  leaseHeartbeatMs: 15_000,
  leaseTtlFactor: 3,
  defaultTimeoutMs: 1_800_000,
  maxAttempts: 3,
  caps: { tenant: 8, project: 4, defaultAccount: 1 },
  pairingIntervalSec: 5,
  pairingExpiresInSec: 600,
  oauthIntervalSec: 5,
  oauthExpiresInSec: 600,
  accessTokenTtlMs: 15 * 60_000,
  refreshTokenTtlMs: 30 * 24 * 3600_000,
  mcpTokenGraceMs: 60_000,
  confirmationTtlMs: 10 * 60_000,
  sessionTtlMs: 12 * 3600_000,
  emptyClaim: '204',
  honourClaimRuntimes: true,
  pairingClaimCredentialsOnly: false,
  bodyLimitBytes: 1024 * 1024,
  rateLimit: { maxFailures: 5, windowMs: 15 * 60_000 },
};

export type ConfigPatch = Partial<Omit<EmulatorConfig, 'caps' | 'rateLimit'>> & {
  caps?: Partial<EmulatorConfig['caps']>;
  rateLimit?: Partial<EmulatorConfig['rateLimit']>;
};

export function mergeConfig(base: EmulatorConfig, patch: ConfigPatch | undefined): EmulatorConfig {
  if (!patch) return { ...base, caps: { ...base.caps }, rateLimit: { ...base.rateLimit } };
  const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as ConfigPatch;
  return {
    ...base,
    ...defined,
    caps: { ...base.caps, ...defined.caps },
    rateLimit: { ...base.rateLimit, ...defined.rateLimit },
  };
}
