/**
 * The lease TTL is a server constant the seed states as 120 s (its heartbeat must be shorter). [seed B6.3]
 * In a module of its own so the Settings view's chunk takes it without growing the window's first script.
 */
export const SECHROOM_LEASE_TTL_MS = 120_000;
