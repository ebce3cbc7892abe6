/** The Memory page's proposals: shown with their evidence, Accept and Dismiss behind CSRF. */
import { afterEach, expect, it } from '@jest/globals';
import { listProposals } from '../../shared/runs/domain-proposals.ts';
import { type DomainProposal } from '../../shared/records/proposals.ts';
import { listRules } from '../../shared/memory/rules-repository.ts';
import { makeHarness, type Harness } from './support.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const BASE = 'http://127.0.0.1:3000';

async function propose(domain: string): Promise<DomainProposal> {
  const evidence = ['ana', 'bo'].map((name, i) => ({
    decision_id: `dec_${domain}_${i}`,
    item_id: `<m${i}@${domain}>`,
    sender: `${name}@${domain}`,
    subject: `Statement ${i}`,
    action: 'archive',
    note: i === 0 ? 'statements are filed' : null,
  }));
  const record = {
    id: `prop_${domain.split('.')[0]}`,
    workflow_id: 'inbox-triage',
    domain,
    action: 'archive',
    status: 'proposed',
    evidence,
    rule_id: null,
    created_at: new Date().toISOString(),
    decided_at: null,
  };
  return (await h.engine.store.create('proposals', record)) as DomainProposal;
}

/** GET /memory with the session cookie; returns the page and its CSRF token. */
async function memoryPage(cookie: string) {
  const res = await h.app.request(`${BASE}/memory`, { headers: { Cookie: cookie } });
  const set = res.headers.getSetCookie().find((c) => c.startsWith('handoff_session='));
  const html = await res.text();
  return {
    html,
    cookie: set ? set.split(';')[0]! : cookie,
    // A page with no form that posts (no proposal, no Undo: a rule's Delete is a link) has no token.
    csrf: /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '',
  };
}

const post = (path: string, cookie: string, fields: Record<string, string>) =>
  h.app.request(`${BASE}${path}`, {
    method: 'POST',
    headers: { Cookie: cookie },
    body: new URLSearchParams(fields),
  });

it('shows each proposal with its senders and decisions, and Accept/Dismiss work only with the CSRF token', async () => {
  h = await makeHarness();
  const acme = await propose('acme.example');
  const beta = await propose('beta.example');
  const page = await memoryPage('');
  expect(page.html).toContain('Proposed (2)');
  expect(page.html).toContain('Anything from acme.example → archive');
  for (const e of acme.evidence) {
    expect(page.html).toContain(e.sender);
    expect(page.html).toContain(`href="/decide/${e.decision_id}"`);
  }
  expect(page.html).toContain('statements are filed');
  expect(page.html).toContain(`action="/memory/proposals/${acme.id}/accept"`);
  expect(page.html).toContain(`action="/memory/proposals/${acme.id}/dismiss"`);

  for (const token of [undefined, 'forged']) {
    const fields = token === undefined ? {} : { _csrf: token };
    for (const choice of ['accept', 'dismiss'])
      expect((await post(`/memory/proposals/${acme.id}/${choice}`, page.cookie, fields)).status).toBe(403);
  }
  expect((await listProposals(h.engine.store)).map((p) => p.status)).toEqual(['proposed', 'proposed']);
  expect(await listRules(h.engine.store)).toEqual([]);

  const accepted = await post(`/memory/proposals/${acme.id}/accept`, page.cookie, { _csrf: page.csrf });
  expect(accepted.headers.get('Location')).toBe('/memory?accepted=1');
  const dismissed = await post(`/memory/proposals/${beta.id}/dismiss`, page.cookie, { _csrf: page.csrf });
  expect(dismissed.headers.get('Location')).toBe('/memory?dismissed=1');
  const again = await post(`/memory/proposals/${acme.id}/dismiss`, page.cookie, { _csrf: page.csrf });
  expect(again.headers.get('Location')).toBe('/memory?undecided=1');

  expect((await listProposals(h.engine.store)).map((p) => [p.domain, p.status])).toEqual([
    ['acme.example', 'accepted'],
    ['beta.example', 'dismissed'],
  ]);
  expect(await listRules(h.engine.store)).toEqual([
    expect.objectContaining({
      source: 'you',
      match: { domain: 'acme.example' },
      workflow_id: 'inbox-triage',
    }),
  ]);
  const after = await memoryPage(page.cookie);
  expect(after.html).not.toContain('Proposed (');
  expect(after.html).toContain('anything from @acme.example');
});
