import { z } from 'zod';

/** RFC 8628 grant type. */
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/** RFC 8414 metadata at `/.well-known/oauth-authorization-server`. [v1 endpoints] */
export const AuthorizationServerMetadataSchema = z.object({
  issuer: z.string().min(1),
  device_authorization_endpoint: z.string().min(1),
  token_endpoint: z.string().min(1),
  revocation_endpoint: z.string().min(1).optional(),
  grant_types_supported: z.array(z.string()).optional(),
  response_types_supported: z.array(z.string()).optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
  revocation_endpoint_auth_methods_supported: z.array(z.string()).optional(),
  scopes_supported: z.array(z.string()).optional(),
});
export type AuthorizationServerMetadata = z.infer<typeof AuthorizationServerMetadataSchema>;

/** Device authorization request (form-encoded; JSON also accepted by the emulator). */
export const DeviceAuthorizationRequestSchema = z.object({
  client_id: z.string().min(1).max(200),
  scope: z.string().max(1000).optional(),
});
export type DeviceAuthorizationRequest = z.infer<typeof DeviceAuthorizationRequestSchema>;

export const DeviceAuthorizationResponseSchema = z.object({
  device_code: z.string().min(1),
  user_code: z.string().min(1),
  verification_uri: z.string().min(1),
  verification_uri_complete: z.string().min(1).optional(),
  expires_in: z.number().int().positive(),
  interval: z.number().int().nonnegative().default(5),
});
export type DeviceAuthorizationResponse = z.infer<typeof DeviceAuthorizationResponseSchema>;

export const DeviceTokenRequestSchema = z.object({
  grant_type: z.literal(DEVICE_CODE_GRANT_TYPE),
  device_code: z.string().min(1).max(500),
  client_id: z.string().min(1).max(200),
});
export const RefreshTokenRequestSchema = z.object({
  grant_type: z.literal('refresh_token'),
  refresh_token: z.string().min(1).max(500),
  client_id: z.string().max(200).optional(),
  scope: z.string().max(1000).optional(),
});
export const TokenRequestSchema = z.discriminatedUnion('grant_type', [DeviceTokenRequestSchema, RefreshTokenRequestSchema]);
export type TokenRequest = z.infer<typeof TokenRequestSchema>;

export const TokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string().refine((t) => t.toLowerCase() === 'bearer', 'token_type must be Bearer'),
  expires_in: z.number().int().positive(),
  refresh_token: z.string().min(1).optional(),
  scope: z.string().optional(),
});
export type TokenResponse = z.infer<typeof TokenResponseSchema>;

export const OAuthErrorSchema = z.object({
  error: z.string().min(1),
  error_description: z.string().optional(),
});

/** RFC 7009 revocation request. */
export const RevocationRequestSchema = z.object({
  token: z.string().min(1).max(500),
  token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
});
