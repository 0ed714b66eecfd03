import { describe, expect, it } from 'vitest';
import { sechroomTokenScope } from '../../../../main/core/planes/sechroom/sechroom-token-scope';

// Whom SECHROOM_TOKEN signs in: never every Sechroom profile of a host without being told.
const TOKEN = 'tok-3f9a-secret';
const scope = (env: Record<string, string | undefined>, profile: string, sechroomProfiles: string[], commandLine: string[] = []) =>
  sechroomTokenScope(env, { profile, sechroomProfiles, commandLine });

describe('SECHROOM_TOKEN scope', () => {
  it('signs in the only Sechroom profile of the host', () => {
    const got = scope({ SECHROOM_TOKEN: ` ${TOKEN} ` }, 'build', ['build']);
    expect(got.token).toBe(TOKEN);
    expect(got.credential).toEqual({ source: 'env', note: 'Token from SECHROOM_TOKEN (the only Sechroom profile here).' });
  });

  it('SECHROOM_REFRESH_TOKEN goes with the token, only where the token is used, and the note says it is refreshed', () => {
    const env = { SECHROOM_TOKEN: TOKEN, SECHROOM_REFRESH_TOKEN: ' ort-secret ', SECHROOM_TOKEN_PROFILE: 'build' };
    const used = scope(env, 'build', ['build', 'review']);
    expect(used).toMatchObject({ token: TOKEN, refreshToken: 'ort-secret' });
    expect(used.credential.note).toBe('Token from SECHROOM_TOKEN (SECHROOM_TOKEN_PROFILE names this profile, refreshed with SECHROOM_REFRESH_TOKEN).');
    expect(scope(env, 'review', ['build', 'review'])).toMatchObject({ token: null, refreshToken: null });
    expect(scope({ SECHROOM_REFRESH_TOKEN: 'ort-secret' }, 'build', ['build'])).toMatchObject({ token: null, refreshToken: null });
  });

  it('with several Sechroom profiles and no SECHROOM_TOKEN_PROFILE, signs in none of them and says why', () => {
    for (const profile of ['build', 'review']) {
      const got = scope({ SECHROOM_TOKEN: TOKEN }, profile, ['build', 'review']);
      expect(got.token).toBeNull();
      expect(got.credential.source).toBe('sign-in');
      expect(got.credential.note).toMatch(/2 Sechroom profiles; set SECHROOM_TOKEN_PROFILE/);
    }
  });

  it('SECHROOM_TOKEN_PROFILE names the profiles it signs in, even among several', () => {
    const env = { SECHROOM_TOKEN: TOKEN, SECHROOM_TOKEN_PROFILE: 'review, nightly' };
    expect(scope(env, 'review', ['build', 'review', 'nightly']).token).toBe(TOKEN);
    expect(scope(env, 'nightly', ['build', 'review', 'nightly']).token).toBe(TOKEN);
    const other = scope(env, 'build', ['build', 'review', 'nightly']);
    expect(other.token).toBeNull();
    expect(other.credential.note).toBe('SECHROOM_TOKEN is not used here: SECHROOM_TOKEN_PROFILE names “review”, “nightly”.');
    // Naming another profile keeps the token from the only Sechroom profile too.
    expect(scope({ SECHROOM_TOKEN: TOKEN, SECHROOM_TOKEN_PROFILE: 'elsewhere' }, 'build', ['build']).token).toBeNull();
  });

  it('the headless command line (a fleet) takes the token for the profiles it starts, not for others', () => {
    expect(scope({ SECHROOM_TOKEN: TOKEN }, 'codex-a', ['codex-a', 'codex-b', 'old'], ['codex-a', 'codex-b']).token).toBe(TOKEN);
    expect(scope({ SECHROOM_TOKEN: TOKEN }, 'old', ['codex-a', 'codex-b', 'old'], ['codex-a', 'codex-b']).token).toBeNull();
  });

  it('a SECHROOM_TOKEN_PROFILE that is not a profile id uses the token nowhere, with a clear note', () => {
    const got = scope({ SECHROOM_TOKEN: TOKEN, SECHROOM_TOKEN_PROFILE: 'Not An Id!' }, 'build', ['build']);
    expect(got.token).toBeNull();
    expect(got.credential.note).toMatch(/^SECHROOM_TOKEN is not used: SECHROOM_TOKEN_PROFILE: A profile id must be/);
  });

  it('without SECHROOM_TOKEN every profile signs in on its own, and no note or token ever carries the secret', () => {
    expect(scope({ SECHROOM_TOKEN: '  ', SECHROOM_TOKEN_PROFILE: 'build' }, 'build', ['build'])).toEqual({
      token: null,
      refreshToken: null,
      credential: { source: 'sign-in', note: null },
    });
    for (const env of [{ SECHROOM_TOKEN: TOKEN }, { SECHROOM_TOKEN: TOKEN, SECHROOM_TOKEN_PROFILE: 'x' }]) {
      expect(JSON.stringify(scope(env, 'build', ['build', 'y']).credential)).not.toContain(TOKEN);
    }
  });
});
