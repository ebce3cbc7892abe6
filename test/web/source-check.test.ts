/** "Check source" on the overview: the workflow's source counted and its first items shown, nothing acted on. */
import fs from 'node:fs/promises';
import { afterEach, describe, expect, it } from '@jest/globals';
import { COLLECTIONS } from '../../shared/store/store.ts';
import { makeHarness, type Harness } from './support.ts';
import { hashTree } from '../support/hash-tree.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

/** A browser-like client: keeps the session cookie and reads the CSRF token off pages. */
function client(app: Harness['app']) {
  let cookie = '';
  const remember = (res: Response) => {
    const set = res.headers.getSetCookie().find((c) => c.startsWith('handoff_session='));
    if (set) cookie = set.split(';')[0]!;
    return res;
  };
  const base = 'http://127.0.0.1:3000';
  return {
    get: async (url: string) => remember(await app.request(`${base}${url}`, { headers: { Cookie: cookie } })),
    post: async (url: string, fields: Record<string, string>) =>
      remember(
        await app.request(`${base}${url}`, {
          method: 'POST',
          headers: { Cookie: cookie },
          body: new URLSearchParams(fields),
        }),
      ),
  };
}

async function storeRecords(): Promise<Record<string, unknown[]>> {
  const all: Record<string, unknown[]> = {};
  for (const collection of COLLECTIONS) all[collection] = await h.engine.store.list(collection);
  return all;
}

describe('Check source', () => {
  it('shows the count and the first items as a table, leaving the Maildir and the store unchanged', async () => {
    h = await makeHarness();
    const maildir = (h.workflow.source as { path: string }).path;
    const browser = client(h.app);
    const overview = await (await browser.get('/')).text();
    const form = /<form method="post" action="\/workflows\/inbox-triage\/source">[\s\S]*?<\/form>/.exec(
      overview,
    );
    expect(form?.[0]).toContain('Check source');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form![0])![1]!;
    const files = await hashTree(maildir);
    const records = await storeRecords();
    const total = Object.keys(files).length;

    const res = await browser.post('/workflows/inbox-triage/source', { _csrf: csrf });

    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page.replace(/\s+/g, ' ')).toContain(
      `${total} items in the source; the first 5 below. Nothing was acted on.`,
    );
    const rows = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)![1]!.match(/<tr>/g);
    expect(rows).toHaveLength(5);
    expect(page).toMatch(/<td class="mono">&lt;[^<]+&gt;<\/td>/); // Message-IDs, escaped
    expect(await hashTree(maildir)).toEqual(files);
    expect(await storeRecords()).toEqual(records);
  });

  it('needs the CSRF token, shows a source it cannot read in one line, and 404s an unknown workflow', async () => {
    h = await makeHarness();
    const browser = client(h.app);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await (await browser.get('/')).text())![1]!;
    for (const token of [undefined, 'forged'])
      expect(
        (await browser.post('/workflows/inbox-triage/source', token ? { _csrf: token } : {})).status,
      ).toBe(403);

    await fs.rm((h.workflow.source as { path: string }).path, { recursive: true });
    const broken = await (await browser.post('/workflows/inbox-triage/source', { _csrf: csrf })).text();
    expect(broken).toMatch(/Could not read the source: \S+: not a Maildir \(no new\/ or cur\/ folder\)/);

    expect((await browser.post('/workflows/nope/source', { _csrf: csrf })).status).toBe(404);
    const page = await browser.get('/workflows/inbox-triage/source');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Check source');
  });
});
