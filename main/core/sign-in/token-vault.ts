import { z } from 'zod';
import { OperatorIdentitySchema, type OperatorIdentity, type TokenResponse } from '../../../shared/protocol';
import { operatorAccount, type SecretStore } from '../secrets/secret-store';

/** What is kept for a signed-in operator: the tokens, their expiry, and who they belong to. */
export const StoredOperatorSchema = z.object({
  v: z.literal(1),
  accessToken: z.string().min(1),
  refreshToken: z.string().min(1).nullable(),
  /** ms since epoch, from `expires_in` at issue. */
  expiresAt: z.number(),
  identity: OperatorIdentitySchema.nullable(),
});
export type StoredOperator = z.infer<typeof StoredOperatorSchema>;

export function fromTokenResponse(
  tokens: TokenResponse,
  now: number,
  identity: OperatorIdentity | null,
  previousRefresh: string | null = null,
): StoredOperator {
  return {
    v: 1,
    accessToken: tokens.access_token,
    // A server that does not rotate keeps the old refresh token valid.
    refreshToken: tokens.refresh_token ?? previousRefresh,
    expiresAt: now + tokens.expires_in * 1000,
    identity,
  };
}

/**
 * The operator's tokens in the SecretStore, one entry per control plane
 * (`operator:<origin>`). Tokens are registered for redaction the moment they are seen.
 */
export class TokenVault {
  constructor(
    private readonly store: SecretStore,
    private readonly registerSecret: (secret: string) => void,
    /** The SecretStore account for a control plane (Sechroom files its tokens under its own names). */
    private readonly accountFor: (controlPlaneUrl: string) => string = operatorAccount,
  ) {}

  get backend(): SecretStore['backend'] {
    return this.store.backend;
  }

  /** null when nothing is stored; a damaged entry is removed and reported as `damaged`. */
  async load(controlPlaneUrl: string): Promise<StoredOperator | null | 'damaged'> {
    const raw = await this.store.get(this.accountFor(controlPlaneUrl));
    if (raw === null) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = null;
    }
    const result = StoredOperatorSchema.safeParse(parsed);
    if (!result.success) {
      await this.store.delete(this.accountFor(controlPlaneUrl));
      return 'damaged';
    }
    this.register(result.data);
    return result.data;
  }

  async save(controlPlaneUrl: string, value: StoredOperator): Promise<void> {
    this.register(value);
    await this.store.set(this.accountFor(controlPlaneUrl), JSON.stringify(value));
  }

  async delete(controlPlaneUrl: string): Promise<void> {
    await this.store.delete(this.accountFor(controlPlaneUrl));
  }

  private register(value: StoredOperator): void {
    this.registerSecret(value.accessToken);
    if (value.refreshToken) this.registerSecret(value.refreshToken);
  }
}
