/**
 * Whether a host names this machine or a private network: loopback, private (RFC 1918,
 * unique-local), link-local (incl. the cloud metadata address 169.254.169.254), carrier-grade
 * NAT, unspecified, multicast, and the names that mean them (`localhost`, `*.localhost`,
 * `*.local`, `*.internal`). IPv4 in any spelling (`2130706433`, `0x7f.1`) is normalised by
 * the URL parser first, and IPv4 inside IPv6 (`::ffff:127.0.0.1`) is unwrapped.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

const LOCAL_NAMES = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)\.?$/i;

/** The host as a URL parser reads it (lowercase, IPv4 normalised, IPv6 without brackets); null if unparsable. */
export function normaliseHost(host: string): string | null {
  try {
    const hostname = new URL(`http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}/`)
      .hostname;
    return hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return null;
  }
}

function ipv4Private(ip: string): boolean {
  const [a = 0, b = 0] = ip.split('.').map(Number);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

function ipv6Private(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (mapped) return ipv4Private(mapped);
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (hex) {
    const n = (parseInt(hex[1]!, 16) << 16) | parseInt(hex[2]!, 16);
    return ipv4Private([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.'));
  }
  const first = parseInt(ip.split(':')[0] || '0', 16);
  return (
    ip === '::' ||
    ip === '::1' ||
    (first & 0xfe00) === 0xfc00 || // fc00::/7 unique local
    (first & 0xffc0) === 0xfe80 || // fe80::/10 link local
    (first & 0xff00) === 0xff00 // multicast
  );
}

/** True when `host` (a name or an address, as written in a URL or a setting) is this machine or a private network. */
export function isPrivateHost(host: string): boolean {
  const name = normaliseHost(host);
  if (name === null || name === '') return true; // unreadable: not something a member may name
  const family = isIP(name);
  if (family === 4) return ipv4Private(name);
  if (family === 6) return ipv6Private(name);
  return LOCAL_NAMES.test(name) || !name.includes('.');
}

/** True when the URL's host is private (see isPrivateHost); an unparsable URL counts as private. */
export function isPrivateUrl(url: string): boolean {
  try {
    return isPrivateHost(new URL(url).hostname);
  } catch {
    return true;
  }
}

/** How long a save waits for a name to resolve before judging it by its spelling alone. */
const LOOKUP_MS = 1500;

/**
 * True when `host` is private by its spelling, or is a name that resolves (now) to a private
 * address. A name that does not resolve is judged by its spelling alone.
 */
export async function reachesPrivateHost(host: string): Promise<boolean> {
  if (isPrivateHost(host)) return true;
  const name = normaliseHost(host)!;
  if (isIP(name)) return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<[]>((resolve) => (timer = setTimeout(() => resolve([]), LOOKUP_MS)));
  try {
    const found = await Promise.race([lookup(name, { all: true }).catch(() => []), timeout]);
    return found.some((a) => isPrivateHost(a.address));
  } finally {
    clearTimeout(timer);
  }
}
