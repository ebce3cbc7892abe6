/**
 * OAuth2 for IMAP (XOAUTH2): the stored client id, secret and refresh token are traded
 * for an access token at the provider's token URL, kept in this process until it expires.
 * No token or secret is ever written anywhere or put into an error message.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { redact, Secret } from '../../credentials/secret.ts';
import { HandoffError } from '../../errors/index.ts';
import { SourceUnavailableError } from '../source.ts';
import type { ImapSourceConfig } from '../../workflows/schema.ts';

/** The token endpoint refused the stored client or refresh token: a person must re-authorise. */
export class OAuthRefusedError extends HandoffError {}

/** The token endpoint could not be reached or answered nonsense: nothing was done, try later. */
export class OAuthUnavailableError extends SourceUnavailableError {}

/** Token endpoints and the scope each wants on refresh. */
export const OAUTH_PROVIDERS = {
  google: { tokenUrl: 'https://oauth2.googleapis.com/token', scope: undefined },
  microsoft: {
    tokenUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    scope: 'https://outlook.office.com/IMAP.AccessAsUser.All offline_access',
  },
  custom: { tokenUrl: undefined, scope: undefined },
} as const;

/** What the credential of an `auth: oauth2` source holds (JSON). */
const OAuthCredentialSchema = z.object({
  client_id: z.string().min(1),
  client_secret: z.string().min(1).optional(),
  refresh_token: z.string().min(1),
});

const TokenResponseSchema = z.object({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().positive().optional(),
  /** A provider that rotates refresh tokens (Microsoft may) sends the one to use next time. */
  refresh_token: z.string().min(1).optional(),
});

/** Refresh this long before the provider says the token expires. */
const EXPIRY_MARGIN_MS = 60_000;
/** When the provider gives no `expires_in`: Google and Microsoft both issue one-hour tokens. */
const DEFAULT_LIFETIME_S = 3600;

interface Cached {
  token: Secret;
  expiresAt: number;
}
const cache = new Map<string, Cached>();

/** The endpoint a source refreshes its token at. */
export function tokenUrl(config: ImapSourceConfig): string {
  const url = config.oauth?.token_url ?? OAUTH_PROVIDERS[config.oauth?.provider ?? 'custom'].tokenUrl;
  if (!url) throw new OAuthRefusedError('oauth.token_url is needed with provider: custom');
  return url;
}

/**
 * An access token for the source's user: the cached one while it is fresh, else a new one
 * from `grant_type=refresh_token` at the token URL. A new refresh token in the answer is
 * handed to `onRotated` as the whole credential to store. Throws OAuthRefusedError
 * (re-authorise) or OAuthUnavailableError (try later), each one line without a secret.
 */
export async function accessToken(
  config: ImapSourceConfig,
  stored: Secret,
  options: { timeoutMs?: number; now?: () => number; onRotated?: (credential: Secret) => Promise<void> } = {},
): Promise<Secret> {
  const now = options.now ?? Date.now;
  const client = parseCredential(config.credential, stored);
  const url = tokenUrl(config);
  const scope = OAUTH_PROVIDERS[config.oauth?.provider ?? 'custom'].scope;
  const key = cacheKey(config, client);
  const cached = cache.get(key);
  if (cached && cached.expiresAt - EXPIRY_MARGIN_MS > now()) return cached.token;
  const secrets = [client.refresh_token, ...(client.client_secret ? [client.client_secret] : [])];
  const host = new URL(url).host;
  const body = new URLSearchParams({ grant_type: 'refresh_token', client_id: client.client_id });
  body.set('refresh_token', client.refresh_token);
  if (client.client_secret) body.set('client_secret', client.client_secret);
  if (scope) body.set('scope', scope);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  } catch (error) {
    const why =
      (error as { name?: string }).name === 'TimeoutError'
        ? 'did not answer in time'
        : 'could not be reached';
    throw new OAuthUnavailableError(redact(`the OAuth2 token endpoint ${host} ${why}`, secrets));
  }
  const json: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const code = z.object({ error: z.string().regex(/^[a-z_]{1,40}$/) }).safeParse(json);
    const reason = code.success ? ` (${code.data.error})` : ` (HTTP ${response.status})`;
    const line =
      response.status >= 500
        ? `the OAuth2 token endpoint ${host} failed${reason}: try again later`
        : `the refresh token was refused by ${host}${reason}: re-authorise and store the new one with \`handoff credentials set ${config.credential}\``;
    const Error = response.status >= 500 ? OAuthUnavailableError : OAuthRefusedError;
    throw new Error(redact(line, secrets));
  }
  const token = TokenResponseSchema.safeParse(json);
  if (!token.success)
    throw new OAuthUnavailableError(`the OAuth2 token endpoint ${host} answered without an access_token`);
  const fresh = {
    token: new Secret(token.data.access_token),
    expiresAt: now() + (token.data.expires_in ?? DEFAULT_LIFETIME_S) * 1000,
  };
  cache.set(key, fresh);
  const next = token.data.refresh_token;
  if (next && next !== client.refresh_token && options.onRotated)
    await options.onRotated(new Secret(JSON.stringify({ ...client, refresh_token: next })));
  return fresh.token;
}

/** Drops a cached token the server refused, so the next attempt refreshes. */
export function forgetAccessToken(config: ImapSourceConfig, stored: Secret): void {
  const client = parseCredential(config.credential, stored);
  cache.delete(cacheKey(config, client));
}

function parseCredential(name: string, stored: Secret): z.infer<typeof OAuthCredentialSchema> {
  let value: unknown;
  try {
    value = JSON.parse(stored.reveal());
  } catch {
    value = undefined;
  }
  const parsed = OAuthCredentialSchema.safeParse(value);
  if (!parsed.success)
    throw new OAuthRefusedError(
      `credential ${name} must hold JSON {"client_id", "client_secret", "refresh_token"} for auth: oauth2`,
    );
  return parsed.data;
}

/** One token per endpoint, scope and client; hashed, so the key itself is never a secret. */
function cacheKey(config: ImapSourceConfig, client: z.infer<typeof OAuthCredentialSchema>): string {
  const scope = OAUTH_PROVIDERS[config.oauth?.provider ?? 'custom'].scope ?? '';
  return createHash('sha256')
    .update([tokenUrl(config), scope, client.client_id, client.refresh_token].join('\n'))
    .digest('hex');
}
