/** A browser-like client over an app: keeps the session cookie and reads CSRF tokens off pages. */
import type { Hono } from 'hono';
import { expect } from '@jest/globals';

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

/** A page's HTML, failing the test unless it answered 200. */
export async function pageText(client: PageClient, path: string): Promise<string> {
  const res = await client.get(path);
  expect(res.status).toBe(200);
  return res.text();
}

/** A page's words as a reader sees them: tags dropped (links join their text), entities read, spaces single. */
export function pageWords(page: string): string {
  return page
    .replace(/<\/?a\b[^>]*>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ');
}

/** The form's CSRF token, as a browser would send it back. */
export function csrfOf(page: string): string {
  return /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
}

/** A bulk answer's notice of a page (its HTML; empty when there is none). */
export function bulkNoticeOf(page: string): string {
  return /<div class="flash flash-ok" role="status" data-bulk-notice>[\s\S]*?<\/div>/.exec(page)?.[0] ?? '';
}

/** The rules a page offers an Undo for, in its order. */
export function undoRuleIds(page: string): string[] {
  return [...page.matchAll(/action="\/rules\/(rule_\w+)\/undo"/g)].map((m) => m[1]!);
}

/** The questions an "accept the suggestions" confirm step names (its form's `ids`). */
export function confirmedIds(confirm: string): string[] {
  return /name="ids" value="([^"]+)"/.exec(confirm)![1]!.split(',');
}

/** Confirms an "accept the suggestions" step as its button does (its token, its questions), with `fields`. */
export function confirmAccept(
  client: PageClient,
  confirm: string,
  fields: Record<string, string>,
): Promise<Response> {
  const ids = confirmedIds(confirm).join(',');
  return client.post('/activity/accept', { _csrf: csrfOf(confirm), ids, confirm: '1', ...fields });
}
