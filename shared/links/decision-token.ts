import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { RecordExistsError } from '../errors/index.ts';
import type { Store, Write } from '../store/store.ts';
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';

/**
 * Deep-link tokens for one decision: signed (HMAC-SHA256), URL-safe, expiring, and
 * single-use — spent by the POST that decides, never by opening the link (mail
 * scanners and link previews open links).
 */
export interface TokenClaims {
  /** The decision the link opens; it opens no other. */
  d: string;
  /** Expiry, epoch seconds. */
  e: number;
  /** A random nonce: what is recorded when the token is spent. */
  n: string;
  /** The decision's workspace id; absent for `default` (and in links from before workspaces). */
  w?: string;
}

export type TokenCheck =
  | { ok: true; claims: TokenClaims }
  | { ok: false; reason: 'malformed' | 'forged' | 'expired' | 'other_decision' | 'spent' };

function mac(key: Buffer, payload: string): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}

/** A token for one decision of one workspace (by id) that expires at `expiresAt`. */
export function signDecisionToken(
  key: Buffer,
  decisionId: string,
  expiresAt: Date,
  workspace: string = DEFAULT_WORKSPACE,
): string {
  const claims: TokenClaims = {
    d: decisionId,
    e: Math.floor(expiresAt.getTime() / 1000),
    n: randomBytes(12).toString('base64url'),
    ...(workspace === DEFAULT_WORKSPACE ? {} : { w: workspace }),
  };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${mac(key, payload)}`;
}

/** Checks signature, expiry and that the token is for this decision of this workspace. Does not spend it. */
export function verifyDecisionToken(
  key: Buffer,
  token: string,
  decisionId: string,
  now = new Date(),
  workspace: string = DEFAULT_WORKSPACE,
): TokenCheck {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return { ok: false, reason: 'malformed' };
  const expected = Buffer.from(mac(key, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    return { ok: false, reason: 'forged' };
  let claims: TokenClaims;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TokenClaims;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof claims.d !== 'string' || typeof claims.e !== 'number' || typeof claims.n !== 'string')
    return { ok: false, reason: 'malformed' };
  if (claims.e * 1000 <= now.getTime()) return { ok: false, reason: 'expired' };
  if (claims.d !== decisionId || (claims.w ?? DEFAULT_WORKSPACE) !== workspace)
    return { ok: false, reason: 'other_decision' };
  return { ok: true, claims };
}

/**
 * Spends a verified token: a conditional create, so it works once. The record carries
 * `ttl` (epoch seconds) so DynamoDB can drop it after the token could no longer be used.
 */
export async function spendToken(store: Store, claims: TokenClaims): Promise<boolean> {
  try {
    const spend = tokenSpend(claims);
    await store.create(spend.collection, spend.record);
    return true;
  } catch (error) {
    if (error instanceof RecordExistsError) return false;
    throw error;
  }
}

/** Spending a verified token as a write, to commit with the answer it gives (works once: a create). */
export function tokenSpend(claims: TokenClaims): Write & { kind: 'create' } {
  const record = { id: claims.n, decision_id: claims.d, ttl: claims.e, spent_at: new Date().toISOString() };
  return { kind: 'create', collection: 'tokens', record };
}

/** What a person sees for a token that does not open the page. */
export function explainToken(reason: Exclude<TokenCheck, { ok: true }>['reason']): string {
  switch (reason) {
    case 'expired':
      return 'This link has expired. Nothing was changed. Open Handoff to see what is still waiting.';
    case 'spent':
      return 'This link was already used to answer. Nothing was changed.';
    case 'other_decision':
      return 'This link belongs to another decision. Nothing was changed.';
    default:
      return 'This link is not valid. Nothing was changed.';
  }
}
