import {
  AuthorizationServerMetadataSchema,
  DEVICE_CODE_GRANT_TYPE,
  DeviceAuthorizationResponseSchema,
  OAuthErrorSchema,
  TokenResponseSchema,
  type AuthorizationServerMetadata,
  type DeviceAuthorizationResponse,
  type TokenResponse,
} from '../../../shared/protocol';
import { ConnectorError } from '../connectors/errors';
import { JsonHttpClient, type FetchLike } from '../connectors/http-json';

const REQUEST_TIMEOUT_MS = 15_000;
export const METADATA_PATH = '/.well-known/oauth-authorization-server';

/** One poll of the token endpoint during a device flow (RFC 8628 §3.5). */
export type DeviceTokenPoll =
  { kind: 'tokens'; tokens: TokenResponse } | { kind: 'pending' } | { kind: 'slow_down'; intervalSeconds?: number } | { kind: 'denied' } | { kind: 'expired' };

/** A refresh either works, or the grant is gone (the operator must sign in again). */
export type RefreshOutcome = { kind: 'tokens'; tokens: TokenResponse } | { kind: 'invalid_grant'; message: string; status?: number };

export interface OAuthClientOptions {
  baseUrl: string;
  clientId: string;
  fetch?: FetchLike;
  knownSecrets?: () => readonly string[];
  /** Where the metadata is, relative to the base URL's origin (default: the RFC 8414 root path). */
  metadataPath?: string;
  /** The scope to ask for in the device flow (default: `forge` when the server lists it). */
  scope?: string;
}

/**
 * The operator's OAuth 2.0 client: RFC 8414 discovery, the RFC 8628 device flow, refresh
 * with rotation and RFC 7009 revocation. Endpoints come from the metadata and must be
 * http(s); a token is only ever sent to an endpoint on the control plane's own origin or
 * over https.
 */
export class OAuthClient {
  private readonly http: JsonHttpClient;
  private metadata: AuthorizationServerMetadata | null = null;

  constructor(private readonly options: OAuthClientOptions) {
    this.http = new JsonHttpClient(options.baseUrl, options.fetch, options.knownSecrets);
  }

  get clientId(): string {
    return this.options.clientId;
  }

  /** Reads (once, then cached) and checks the authorization server metadata. */
  async discover(): Promise<AuthorizationServerMetadata> {
    if (this.metadata) return this.metadata;
    const path = this.options.metadataPath ?? METADATA_PATH;
    const res = await this.http.request({ method: 'GET', path, timeoutMs: REQUEST_TIMEOUT_MS });
    if (res.status !== 200) throw this.http.rejected(path, res);
    const metadata = this.http.parse(path, res, AuthorizationServerMetadataSchema);
    for (const key of ['device_authorization_endpoint', 'token_endpoint', 'revocation_endpoint'] as const) {
      const value = metadata[key];
      if (value !== undefined) this.checkEndpoint(key, value);
    }
    this.metadata = metadata;
    return metadata;
  }

  async startDeviceAuthorization(): Promise<DeviceAuthorizationResponse> {
    const metadata = await this.discover();
    const form: Record<string, string> = { client_id: this.options.clientId };
    if (this.options.scope) form.scope = this.options.scope;
    else if (metadata.scopes_supported?.includes('forge')) form.scope = 'forge';
    const path = metadata.device_authorization_endpoint;
    const res = await this.http.request({ method: 'POST', path, form, timeoutMs: REQUEST_TIMEOUT_MS });
    if (res.status !== 200) throw this.oauthRejected('device authorization', res.status, res.body);
    const parsed = this.http.parse('device authorization', res, DeviceAuthorizationResponseSchema);
    this.checkEndpoint('verification_uri', parsed.verification_uri);
    if (parsed.verification_uri_complete !== undefined) this.checkEndpoint('verification_uri_complete', parsed.verification_uri_complete);
    return parsed;
  }

  async pollDeviceToken(deviceCode: string): Promise<DeviceTokenPoll> {
    const metadata = await this.discover();
    const res = await this.tokenRequest(metadata, { grant_type: DEVICE_CODE_GRANT_TYPE, device_code: deviceCode, client_id: this.options.clientId });
    if (res.status === 200) return { kind: 'tokens', tokens: this.http.parse('token', res, TokenResponseSchema) };
    const error = OAuthErrorSchema.safeParse(res.body);
    if (res.status === 400 && error.success) {
      switch (error.data.error) {
        case 'authorization_pending':
          return { kind: 'pending' };
        case 'slow_down': {
          const interval = (res.body as { interval?: unknown }).interval;
          return { kind: 'slow_down', ...(typeof interval === 'number' && Number.isFinite(interval) ? { intervalSeconds: interval } : {}) };
        }
        case 'access_denied':
          return { kind: 'denied' };
        case 'expired_token':
          return { kind: 'expired' };
      }
    }
    throw this.oauthRejected('token', res.status, res.body);
  }

  async refresh(refreshToken: string): Promise<RefreshOutcome> {
    const metadata = await this.discover();
    let res;
    try {
      res = await this.tokenRequest(metadata, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: this.options.clientId });
    } catch (error) {
      // Some servers answer a dead refresh token (or client) with 401 instead of 400.
      if (error instanceof ConnectorError && error.kind === 'unauthorized')
        return { kind: 'invalid_grant', message: 'the control plane refused the refresh (401)', status: 401 };
      throw error;
    }
    if (res.status === 200) return { kind: 'tokens', tokens: this.http.parse('token', res, TokenResponseSchema) };
    const error = OAuthErrorSchema.safeParse(res.body);
    if (res.status === 400 && error.success && (error.data.error === 'invalid_grant' || error.data.error === 'invalid_client')) {
      return { kind: 'invalid_grant', message: `the control plane refused the refresh (${error.data.error})`, status: 400 };
    }
    throw this.oauthRejected('token', res.status, res.body);
  }

  /** RFC 7009. Returns false when the server has no revocation endpoint. */
  async revoke(token: string, hint: 'access_token' | 'refresh_token'): Promise<boolean> {
    const metadata = await this.discover();
    const path = metadata.revocation_endpoint;
    if (!path) return false;
    const res = await this.http.request({
      method: 'POST',
      path,
      form: { token, token_type_hint: hint, client_id: this.options.clientId },
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    if (res.status !== 200) throw this.oauthRejected('revocation', res.status, res.body);
    return true;
  }

  private tokenRequest(metadata: AuthorizationServerMetadata, form: Record<string, string>) {
    return this.http.request({ method: 'POST', path: metadata.token_endpoint, form, timeoutMs: REQUEST_TIMEOUT_MS });
  }

  private checkEndpoint(name: string, value: string): void {
    let url: URL;
    try {
      url = new URL(value, this.options.baseUrl);
    } catch {
      throw new ConnectorError('invalid_response', `${name} is not a valid address`);
    }
    const sameOrigin = url.origin === this.http.origin;
    if (!(url.protocol === 'https:' || (url.protocol === 'http:' && sameOrigin)) || url.username || url.password) {
      throw new ConnectorError('invalid_response', `${name} must be an https address or on the control plane's own origin`);
    }
  }

  private oauthRejected(what: string, status: number, body: unknown): ConnectorError {
    const error = OAuthErrorSchema.safeParse(body);
    const code = error.success ? error.data.error.slice(0, 100) : undefined;
    return new ConnectorError('rejected', `${what}: refused (${status}${code ? ` ${code}` : ''})`, status, code);
  }
}
