/**
 * Page sessions and CSRF tokens. A session is a signed cookie (HttpOnly,
 * SameSite=Strict, Secure over https) holding a random id, an expiry and whether
 * the password was given; nothing is kept server-side, so it works the same on
 * Lambda. The signing key is derived from the link key and the password, so
 * changing the password logs everyone out. A CSRF token is an HMAC of the session
 * id: every state-changing form carries it, and a POST without it is refused.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { LinkKey } from '../links/link-key.ts';

export const SESSION_COOKIE = 'handoff_session';
/** How long a session lasts. */
export const SESSION_TTL_SECONDS = 12 * 3600;
/** Failed logins allowed per minute (per process) before logins are refused for a while. */
const MAX_FAILURES_PER_MINUTE = 10;

export interface Session {
  /** Random id; the CSRF token is bound to it. */
  sid: string;
  /** Expiry, epoch seconds. */
  exp: number;
  /** True once the password was given (or when none is configured). */
  auth: boolean;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Constant-time string equality. */
export function sameText(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** Issues, reads and checks page sessions. */
export class Sessions {
  private key: Promise<Buffer> | undefined;
  private failures: number[] = [];

  constructor(
    private readonly linkKey: LinkKey,
    /** `HANDOFF_UI_PASSWORD`; unset, pages need no login. */
    readonly password: string | undefined,
  ) {}

  get passwordSet(): boolean {
    return this.password !== undefined && this.password !== '';
  }

  /** The valid session the request carries, or null. */
  async read(c: Context): Promise<Session | null> {
    const raw = getCookie(c, SESSION_COOKIE);
    if (!raw) return null;
    const [payload, signature, extra] = raw.split('.');
    if (!payload || !signature || extra !== undefined) return null;
    if (!sameText(signature, await this.sign(`session.${payload}`))) return null;
    try {
      const session = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<Session>;
      if (
        typeof session.sid !== 'string' ||
        typeof session.exp !== 'number' ||
        typeof session.auth !== 'boolean'
      )
        return null;
      if (session.exp * 1000 <= Date.now()) return null;
      return { sid: session.sid, exp: session.exp, auth: session.auth };
    } catch {
      return null;
    }
  }

  /** Starts a fresh session (a new id: logging in never keeps an old one) and sets its cookie. */
  async issue(c: Context, auth: boolean): Promise<Session> {
    const session: Session = {
      sid: randomBytes(18).toString('base64url'),
      exp: Math.floor(Date.now() / 1000) + SESSION_TTL_SECONDS,
      auth,
    };
    const payload = Buffer.from(JSON.stringify(session)).toString('base64url');
    setCookie(c, SESSION_COOKIE, `${payload}.${await this.sign(`session.${payload}`)}`, {
      httpOnly: true,
      sameSite: 'Strict',
      secure: isHttps(c),
      path: '/',
      maxAge: SESSION_TTL_SECONDS,
    });
    return session;
  }

  /** Ends the session in this browser. */
  clear(c: Context): void {
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: isHttps(c), httpOnly: true, sameSite: 'Strict' });
  }

  /** The CSRF token for forms of this session. */
  csrfFor(session: Session): Promise<string> {
    return this.sign(`csrf.${session.sid}`);
  }

  /** True when `given` is this session's CSRF token. */
  async csrfValid(session: Session, given: unknown): Promise<boolean> {
    return typeof given === 'string' && given !== '' && sameText(given, await this.csrfFor(session));
  }

  /** Checks a login attempt; refuses every attempt while too many have failed recently. */
  checkPassword(given: unknown): 'ok' | 'wrong' | 'throttled' {
    const now = Date.now();
    this.failures = this.failures.filter((t) => now - t < 60_000);
    if (this.failures.length >= MAX_FAILURES_PER_MINUTE) return 'throttled';
    if (this.passwordSet && typeof given === 'string' && sameText(given, this.password!)) return 'ok';
    this.failures.push(now);
    return 'wrong';
  }

  private async sign(text: string): Promise<string> {
    this.key ??= this.linkKey.get().then((linkKey) =>
      createHmac('sha256', linkKey)
        .update(`handoff-session-v1\0${digest(this.password ?? '').toString('hex')}`)
        .digest(),
    );
    return createHmac('sha256', await this.key)
      .update(text)
      .digest('base64url');
  }
}

/** True when the request reached us over https (directly or behind a proxy / API Gateway). */
export function isHttps(c: Context): boolean {
  const forwarded = c.req.header('X-Forwarded-Proto')?.split(',')[0]?.trim().toLowerCase();
  return forwarded === 'https' || new URL(c.req.url).protocol === 'https:';
}

/** A same-site path to go to after a form, or the fallback (never another origin). */
export function safeNext(next: unknown, fallback: string): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.includes('\\'))
    return fallback;
  return /^[\w\-./?=&%~]*$/.test(next) ? next : fallback;
}
