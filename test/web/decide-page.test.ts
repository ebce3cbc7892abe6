import { afterEach, describe, expect, it } from '@jest/globals';
import { signDecisionToken } from '../../shared/links/decision-token.ts';
import { getDecision, listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { createApp } from '../../shared/web/app.ts';
import { loadEnv } from '../../shared/config/env.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';

const KEY = Buffer.alloc(32, 7); // the fixture's link key
let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

async function pausedRun(body = 'Hello,\n\nCan we talk?\n') {
  fixture = await engineFixture({
    messages: [
      mail({ from: 'jo@partner.example', subject: 'Partnership', body }),
      mail({ from: 'x@y.example', subject: 'Other' }),
    ],
    model: () =>
      new ScriptedModel(
        executorScript(() => ({
          action: 'archive',
          confidence: 0.2,
          reasoning: 'I cannot tell if this is a lead or phishing',
        })),
      ),
  });
  await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
  const link = fixture.notices.find((n) => n.kind === 'asked')!;
  const url = new URL((link as { link: string }).link);
  const app = createApp({
    engine: fixture.deps,
    env: loadEnv({ HANDOFF_STATE_DIR: fixture.dir }),
    linkKey: { get: async () => KEY },
    requireToken: true,
  });
  return {
    app,
    path: `${url.pathname}${url.search}`,
    decisionId: decodeURIComponent(url.pathname.split('/').pop()!),
    token: url.searchParams.get('token')!,
  };
}

function post(app: ReturnType<typeof createApp>, id: string, fields: Record<string, string>) {
  return app.request(`/decide/${id}`, { method: 'POST', body: new URLSearchParams(fields) });
}

describe('the decision link', () => {
  it('opens the decision without changing anything; only a POST decides, once', async () => {
    const { app, path, decisionId, token } = await pausedRun();
    const opened = await app.request(path);
    expect(opened.status).toBe(200);
    const page = await opened.text();
    expect(page).toContain('I cannot tell if this is a lead or phishing');
    expect(page).toContain('and 1 more after this');
    expect((await getDecision(fixture.store, decisionId)).status).toBe('pending'); // opening is not answering

    const answered = await post(app, decisionId, { token, action: 'skip', note: 'not now' });
    expect(answered.status).toBe(200);
    const recorded = await answered.text();
    expect(recorded).toMatch(/Recorded for “Partnership”: <strong>Left alone<\/strong>/);
    expect(recorded).toMatch(/<p data-learned>(From now on: |Nothing)/); // what the answer taught, in words
    expect((await getDecision(fixture.store, decisionId)).answer).toMatchObject({
      action: 'skip',
      note: 'not now',
    });

    const again = await post(app, decisionId, { token, action: 'archive' });
    expect(again.status).toBe(403);
    expect(await again.text()).toContain('already used');
    expect((await app.request(path)).status).toBe(403); // a spent link shows a clear page
    expect((await getDecision(fixture.store, decisionId)).answer?.action).toBe('skip');
  });

  it("refuses a forged, an expired, another decision's token, or none, and changes nothing", async () => {
    const { app, decisionId, token } = await pausedRun();
    const other = (await listPending(fixture.store)).find((d) => d.id !== decisionId)!;
    const forged = signDecisionToken(Buffer.alloc(32, 9), decisionId, new Date(Date.now() + 3_600_000));
    const expired = signDecisionToken(KEY, decisionId, new Date(Date.now() - 1000));
    for (const [fields, text] of [
      [{ token: forged, action: 'archive' }, 'not valid'],
      [{ token: expired, action: 'archive' }, 'expired'],
      [{ token: `${token.slice(0, -2)}xx`, action: 'archive' }, 'not valid'],
      [{ action: 'archive' }, 'opens from the link'],
    ] as const) {
      const response = await post(app, decisionId, fields);
      expect(response.status).toBe(403);
      expect(await response.text()).toContain(text);
    }
    const misused = await post(app, other.id, { token, action: 'archive' });
    expect(misused.status).toBe(403);
    expect(await misused.text()).toContain('another decision');
    expect((await listPending(fixture.store)).map((d) => d.status)).toEqual(['pending', 'pending']);
  });

  it('refuses an action that is not offered without spending the link', async () => {
    const { app, decisionId, token } = await pausedRun();
    expect((await post(app, decisionId, { token, action: 'delete_everything' })).status).toBe(422);
    expect((await post(app, decisionId, { token, action: 'archive' })).status).toBe(200);
  });

  it('shows a hostile message inert', async () => {
    const { app, path } = await pausedRun(
      '<script>alert(1)</script><img src="https://evil.example/x.png" onerror="steal()">',
    );
    const page = await (await app.request(path)).text();
    expect(page).not.toContain('<script>alert(1)</script>');
    expect(page).not.toMatch(/<img[^>]*evil\.example/);
    expect(page).toContain('&lt;script&gt;');
  });

  it("hands the link's holder the next question of the same run, with its own single-use link", async () => {
    const { app, decisionId, token } = await pausedRun();
    const answered = await (await post(app, decisionId, { token, action: 'skip' })).text();
    const next = /href="([^"]+)"/
      .exec(answered.slice(answered.indexOf('Next question') - 200))?.[1]
      ?.replace(/&amp;/g, '&');
    expect(next).toMatch(/^\/decide\/dec_[^?]+\?token=/);
    const nextId = decodeURIComponent(next!.split('?')[0]!.split('/').pop()!);
    expect(nextId).not.toBe(decisionId);
    expect((await app.request(next!)).status).toBe(200);
    const nextToken = new URL(next!, 'http://x').searchParams.get('token')!;
    expect((await post(app, nextId, { token: nextToken, action: 'skip' })).status).toBe(200);
    expect(await listPending(fixture.store)).toEqual([]);
  });
});
