/**
 * Which requests the app answers at all. A page on another site can point its own
 * name at 127.0.0.1 (DNS rebinding) and then talk to the local server as if it were
 * same-origin, but its requests still carry its own name in `Host`. So every request
 * must name this server (a loopback name, the host of a UI base URL, API Gateway's
 * domain), and every state-changing request a browser sends (it carries `Origin`)
 * must come from this server's own origin or a UI base URL's.
 */
import type { Context, MiddlewareHandler } from 'hono';

/** The names the local server is known by; any port. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** What {@link hostGuard} accepts, read per request (a stored UI base URL may change at runtime). */
export interface HostRules {
  /** Host names (any port) besides those of the UI base URLs. */
  hosts: (c: Context) => readonly (string | undefined)[];
  /** The UI base URLs in force now. */
  baseUrls: () => readonly (string | undefined)[];
}

/** Methods that change nothing: their `Origin` is not checked. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** `host` or `host:port`, where host is a DNS name, an IPv4 address or a bracketed IPv6 address. */
const HOST_HEADER = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** Refuses (403, one plain line) a request for another host, or a change sent from another site. */
export function hostGuard(rules: HostRules): MiddlewareHandler {
  return async (c, next) => {
    const given = c.req.header('Host') ?? new URL(c.req.url).host;
    const host = parseHost(given);
    const bases = rules.baseUrls().flatMap((base) => parseUrl(base) ?? []);
    const names = new Set([
      ...rules.hosts(c).flatMap((name) => (name ? [name.toLowerCase()] : [])),
      ...bases.map((base) => base.hostname),
    ]);
    if (!host || !names.has(host.hostname))
      return c.text(`refused: "${shown(given)}" is not this server's address or its UI base URL's\n`, 403);
    const origin = c.req.header('Origin');
    if (!SAFE_METHODS.has(c.req.method) && origin !== undefined && !ownOrigin(origin, host, bases))
      return c.text(
        `refused: a change sent from another site (Origin "${shown(origin)}"); nothing changed\n`,
        403,
      );
    await next();
    return undefined;
  };
}

/**
 * True when `origin` is this request's own host (any scheme: TLS may end at a proxy)
 * or a UI base URL's origin. `null` (sandboxed frames, data: URLs) is never ours.
 */
function ownOrigin(origin: string, host: URL, bases: readonly URL[]): boolean {
  const url = parseUrl(origin);
  if (!url || url.origin !== origin) return false;
  return url.host === host.host || bases.some((base) => base.origin === url.origin);
}

/** The Host header as a URL (for its normalised hostname and host), or null when malformed. */
function parseHost(header: string): URL | null {
  return HOST_HEADER.test(header) ? parseUrl(`http://${header}`) : null;
}

function parseUrl(text: string | undefined): URL | null {
  if (!text) return null;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** A header value fit to quote in one short line. */
function shown(value: string): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > 80 ? `${printable.slice(0, 80)}...` : printable;
}
