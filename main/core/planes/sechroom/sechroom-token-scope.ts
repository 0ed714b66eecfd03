import { z } from 'zod';
import { ProfileIdSchema } from '../../../../shared/profiles';
import type { SechroomCredential } from '../../../../shared/sechroom-profile-contract';

/*
 * Which Sechroom profiles `SECHROOM_TOKEN` (the seed's pre-minted bearer) signs in. One bearer
 * is one operator on one Work Layer, so it never silently applies to every profile:
 *   1. `SECHROOM_TOKEN_PROFILE=<id>[,<id>…]`: those profiles only;
 *   2. else the profiles the headless host was started with (`--plane sechroom`, a fleet
 *      config: the seed's `executor run`/`fleet` with its token);
 *   3. else the host's only Sechroom profile; with several, none (each signs in on its own,
 *      and the window says why the token was not used).
 * Decided each time a profile's executor starts (host start, configure, sign-in).
 */

const ScopeEnvSchema = z.object({
  SECHROOM_TOKEN: z
    .string()
    .optional()
    .transform((v) => v?.trim() || null),
  SECHROOM_REFRESH_TOKEN: z
    .string()
    .optional()
    .transform((v) => v?.trim() || null),
  SECHROOM_TOKEN_PROFILE: z
    .string()
    .optional()
    .transform((v) => (v ?? '').split(',').flatMap((id) => (id.trim() ? [id.trim()] : [])))
    .pipe(z.array(ProfileIdSchema)),
});

/** The bearer this profile may use, the refresh token handed in with it (`SECHROOM_REFRESH_TOKEN`), and where they come from. */
export type TokenScope = { token: string | null; refreshToken: string | null; credential: SechroomCredential };

export interface TokenScopeInput {
  profile: string;
  /** Every Sechroom profile of the host (this one included). */
  sechroomProfiles: readonly string[];
  /** The profiles the headless host was started with on its command line. */
  commandLine: readonly string[];
}

/** The token this profile may use, and how the window describes where its credential comes from. */
export function sechroomTokenScope(env: Readonly<Record<string, string | undefined>>, input: TokenScopeInput): TokenScope {
  const { profile } = input;
  const parsed = ScopeEnvSchema.safeParse(env);
  if (!parsed.success) {
    return {
      token: null,
      refreshToken: null,
      credential: { source: 'sign-in', note: `SECHROOM_TOKEN is not used: SECHROOM_TOKEN_PROFILE: ${parsed.error.issues[0]?.message ?? 'invalid'}` },
    };
  }
  const { SECHROOM_TOKEN: token, SECHROOM_REFRESH_TOKEN: refreshToken, SECHROOM_TOKEN_PROFILE: named } = parsed.data;
  if (!token) return { token: null, refreshToken: null, credential: { source: 'sign-in', note: null } };
  const refreshed = refreshToken ? ', refreshed with SECHROOM_REFRESH_TOKEN' : '';
  const use = (why: string): TokenScope => ({ token, refreshToken, credential: { source: 'env', note: `Token from SECHROOM_TOKEN (${why}${refreshed}).` } });
  const skip = (why: string): TokenScope => ({
    token: null,
    refreshToken: null,
    credential: { source: 'sign-in', note: `SECHROOM_TOKEN is not used here: ${why}.` },
  });
  if (named.length > 0) {
    return named.includes(profile)
      ? use('SECHROOM_TOKEN_PROFILE names this profile')
      : skip(`SECHROOM_TOKEN_PROFILE names ${named.map((id) => `“${id}”`).join(', ')}`);
  }
  if (input.commandLine.length > 0) {
    return input.commandLine.includes(profile) ? use('the host was started with this profile') : skip('it is for the profiles the host was started with');
  }
  const others = input.sechroomProfiles.filter((id) => id !== profile);
  if (others.length === 0) return use('the only Sechroom profile here');
  return skip(`this host has ${others.length + 1} Sechroom profiles; set SECHROOM_TOKEN_PROFILE to the one it is for`);
}
