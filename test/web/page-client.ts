/** A browser-like client over an app: keeps the session cookie and reads CSRF tokens off pages. */
import type { Hono } from 'hono';

export interface PageClient {
  readonly cookie: string;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  post(path: string, fields: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
  /** A form POST with the session's CSRF token (read from `from`). */
  submit(path: string, fields?: Record<string, string>, from?: string): Promise<Response>;
  csrf(path?: string): Promise<string>;
}

export function pageClient(app: Hono, base = 'http://127.0.0.1:3000'): PageClient {
  let cookie = '';
  const remember = (res: Response) => {
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(';');
      const [name] = (pair ?? '').split('=');
      const kept = cookie
        .split('; ')
        .filter((c) => c && !c.startsWith(`${name}=`))
        .concat(set.includes('Max-Age=0') ? [] : [pair!]);
      cookie = kept.join('; ');
    }
    return res;
  };
  const client: PageClient = {
    get cookie() {
      return cookie;
    },
    get: async (path, headers = {}) =>
      remember(await app.request(`${base}${path}`, { headers: { Cookie: cookie, ...headers } })),
    post: async (path, fields, headers = {}) =>
      remember(
        await app.request(`${base}${path}`, {
          method: 'POST',
          headers: { Cookie: cookie, Origin: base, ...headers },
          body: new URLSearchParams(fields),
        }),
      ),
    async submit(path, fields = {}, from = '/') {
      return client.post(path, { _csrf: await client.csrf(from), ...fields });
    },
    async csrf(path = '/') {
      const html = await (await client.get(path)).text();
      const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
      if (!token) throw new Error(`no CSRF token on ${path}`);
      return token;
    },
  };
  return client;
}
