import { afterEach, describe, expect, it } from '@jest/globals';
import { speakToWav } from '../../bench/speech-fixture.ts';
import { listAudit } from '../../shared/audit/audit.ts';
import { loadEnv } from '../../shared/config/env.ts';
import { getDecision, listPending } from '../../shared/runs/decision-repository.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { LocalSpeech } from '../../shared/speech/local.ts';
import { createSpeech } from '../../shared/speech/speech.ts';
import { decodeWav, encodeWav } from '../../shared/speech/wav.ts';
import { createApp } from '../../shared/web/app.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';

const KEY = 'speech-test-key';
let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

/** A run paused on two questions (delete offered, and irreversible), and the app over it. */
async function paused(speech?: ReturnType<typeof createSpeech>) {
  fixture = await engineFixture({
    messages: [
      mail({ from: 'jo@partner.example', subject: 'Partnership', body: 'Can we talk?' }),
      mail({ from: 'x@y.example', subject: 'Other' }),
    ],
    model: () =>
      new ScriptedModel(
        executorScript(() => ({
          action: 'archive',
          confidence: 0.2,
          reasoning: 'I cannot tell if this is a lead',
        })),
      ),
  });
  await saveWorkflow(fixture.store, {
    ...fixture.workflow,
    human_gate: {
      ...fixture.workflow.human_gate,
      options: [...fixture.workflow.human_gate.options, 'delete'],
    },
  });
  await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
  const env = loadEnv({ HANDOFF_STATE_DIR: fixture.dir, HANDOFF_API_KEY: KEY });
  const app = createApp({
    engine: fixture.deps,
    env,
    linkKey: { get: async () => Buffer.alloc(32, 7) },
    ...(speech ? { speech } : {}),
  });
  const pending = await listPending(fixture.store);
  return { app, pending };
}

const auth = { Authorization: `Bearer ${KEY}` };
const wavHeaders = { ...auth, 'Content-Type': 'audio/wav' };
const said = async (text: string) => new Uint8Array(await speakToWav(text, 'en-us', 170));

describe('the speech API', () => {
  it('GET /api/speech/status names the provider in use and whether each is usable', async () => {
    const { app } = await paused();
    const res = await app.request('/api/speech/status', { headers: auth });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { provider: string; providers: { name: string; usable: boolean }[] };
    expect(body.provider).toBe('local');
    expect(body.providers.map((p) => [p.name, p.usable])).toEqual([
      ['local', true],
      ['aws', false],
      ['groq', false],
      ['browser', true],
    ]);
    expect((await app.request('/api/speech/status')).status).toBe(401);
  });

  it('POST /api/speech/transcribe hears a WAV; POST /api/speech/speak answers with one', async () => {
    const { app } = await paused();
    const heard = await app.request('/api/speech/transcribe', {
      method: 'POST',
      headers: wavHeaders,
      body: await said('file a ticket'),
    });
    expect(heard.status).toBe(200);
    expect(await heard.json()).toMatchObject({ text: 'file a ticket', provider: 'local' });

    const spoken = await app.request('/api/speech/speak', {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'Archive the newsletter?' }),
    });
    expect(spoken.status).toBe(200);
    expect(spoken.headers.get('Content-Type')).toBe('audio/wav');
    expect(decodeWav(Buffer.from(await spoken.arrayBuffer()))).toMatchObject({
      sampleRate: 16000,
      channels: 1,
    });
  });

  it('refuses bad audio with one line: not WAV, not audio/wav, empty, the wrong rate, ten minutes', async () => {
    const { app } = await paused();
    const post = (body: Uint8Array | string, headers: Record<string, string> = wavHeaders) =>
      app.request('/api/speech/transcribe', { method: 'POST', headers, body });
    const expectError = async (res: Response, status: number, text: string) => {
      expect(res.status).toBe(status);
      const body = (await res.json()) as { error: string };
      expect(body.error).toContain(text);
      expect(body.error).not.toContain('\n');
    };
    await expectError(await post('ID3 not a wav'), 422, 'the audio is not a WAV file');
    await expectError(
      await post(await said('archive it'), { ...auth, 'Content-Type': 'audio/webm' }),
      415,
      'audio/wav',
    );
    await expectError(await post(new Uint8Array(encodeWav(Buffer.alloc(0)))), 422, 'the recording is empty');
    await expectError(
      await post(new Uint8Array(encodeWav(Buffer.alloc(8820), 44100))),
      422,
      'send 16000 Hz mono',
    );
    const tenMinutes = new Uint8Array(encodeWav(Buffer.alloc(600 * 32000)));
    await expectError(await post(tenMinutes), 413, 'speech takes at most 30 s');
    await expectError(
      await app.request('/api/speech/speak', { method: 'POST', headers: auth, body: '{"text": ""}' }),
      422,
      'there is no text to speak',
    );
    await expectError(
      await app.request('/api/speech/speak', { method: 'POST', headers: auth, body: 'hi' }),
      400,
      'JSON',
    );
  });
});

describe('the Talk page calling the API', () => {
  it('passes with its session and CSRF token, and is refused without the token', async () => {
    const { app } = await paused();
    const page = await app.request('/talk');
    expect(page.status).toBe(200);
    const cookie = page.headers.get('Set-Cookie')!.split(';')[0]!;
    const csrf = /data-csrf="([^"]+)"/.exec(await page.text())![1]!;
    const withToken = await app.request('/api/speech/status', {
      headers: { Cookie: cookie, 'X-CSRF-Token': csrf },
    });
    expect(withToken.status).toBe(200);
    const without = await app.request('/api/speech/status', { headers: { Cookie: cookie } });
    expect(without.status).toBe(401);
    const wrong = await app.request('/api/speech/status', {
      headers: { Cookie: cookie, 'X-CSRF-Token': 'x' },
    });
    expect(wrong.status).toBe(401);
  });
});

describe('the Talk page on AWS (a page calls the API with its session at /ui/api)', () => {
  it('calls the API at /ui/api with its logged-in session and CSRF token; without them nothing is answered', async () => {
    const { pending } = await paused();
    const env = loadEnv({ HANDOFF_STATE_DIR: fixture.dir, HANDOFF_UI_PASSWORD: 'talk-pass' });
    const lambda = createApp({
      engine: fixture.deps,
      env,
      linkKey: { get: async () => Buffer.alloc(32, 7) },
      requireToken: true,
      iamApi: true,
      hosts: () => ['api.example.com'],
    });
    const at = (path: string) => `https://api.example.com${path}`;
    const login = await lambda.request(at('/login'));
    let cookie = login.headers.get('Set-Cookie')!.split(';')[0]!;
    const loginCsrf = /name="_csrf" value="([^"]+)"/.exec(await login.text())![1]!;
    const loggedIn = await lambda.request(at('/login'), {
      method: 'POST',
      headers: { Cookie: cookie, Origin: 'https://api.example.com' },
      body: new URLSearchParams({ _csrf: loginCsrf, password: 'talk-pass', next: '/talk' }),
    });
    expect(loggedIn.status).toBe(303);
    cookie = loggedIn.headers.get('Set-Cookie')?.split(';')[0] ?? cookie;
    const page = await lambda.request(at('/talk'), { headers: { Cookie: cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = await (await lambda.request(at('/assets/talk.js'))).text();
    expect(script).toContain("fetch('/ui' + path"); // the page's calls go through /ui/api
    const csrf = /data-csrf="([^"]+)"/.exec(html)![1]!;
    const answer = (headers: Record<string, string>) =>
      lambda.request(at(`/ui/api/decisions/${encodeURIComponent(pending[0]!.id)}`), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: 'https://api.example.com', ...headers },
        body: JSON.stringify({ action: 'archive' }),
      });

    const refused = [await answer({ Cookie: cookie }), await answer({ 'X-CSRF-Token': csrf })];
    expect(refused.map((r) => r.status)).toEqual([401, 401]);
    expect((await getDecision(fixture.store, pending[0]!.id)).status).toBe('pending');

    const answered = await answer({ Cookie: cookie, 'X-CSRF-Token': csrf });
    expect(answered.status).toBe(200);
    expect((await getDecision(fixture.store, pending[0]!.id)).answer?.action).toBe('archive');
    const heard = await lambda.request(at('/ui/api/speech/transcribe'), {
      method: 'POST',
      headers: {
        Cookie: cookie,
        'X-CSRF-Token': csrf,
        'Content-Type': 'audio/wav',
        Origin: 'https://api.example.com',
      },
      body: await said('file a ticket'),
    });
    expect(heard.status).toBe(200);
    expect(await heard.json()).toMatchObject({ text: 'file a ticket', provider: 'local' });
  });
});

describe('POST /api/decisions/:id/voice', () => {
  it('answers "archive it" and "leave it" through decide, and the run resumes with the skip declined', async () => {
    const { app, pending } = await paused();
    const [first, second] = pending;
    const voice = async (id: string, text: string) =>
      app.request(`/api/decisions/${encodeURIComponent(id)}/voice`, {
        method: 'POST',
        headers: wavHeaders,
        body: await said(text),
      });

    const archived = await voice(first!.id, 'archive it');
    expect(archived.status).toBe(200);
    expect(await archived.json()).toMatchObject({
      transcript: 'archive it',
      intent: 'archive',
      action: 'archive',
    });
    expect((await getDecision(fixture.store, first!.id)).answer).toMatchObject({
      action: 'archive',
      by: 'human',
    });

    const left = await voice(second!.id, 'leave it');
    expect(await left.json()).toMatchObject({ intent: 'skip', action: 'skip', run_status: 'completed' });
    expect((await getRun(fixture.store, first!.run_id)).status).toBe('completed');
    const audit = await listAudit(fixture.store, { runId: first!.run_id });
    expect(audit.find((a) => a.item_id === second!.item_id)).toMatchObject({
      outcome: 'declined',
      decided_by: 'human',
    });
    expect(audit.find((a) => a.item_id === first!.item_id)).toMatchObject({
      action: 'archive',
      decided_by: 'human',
    });
  });

  it('asks for a spoken "yes" before an irreversible option, and only then acts', async () => {
    const { app, pending } = await paused();
    const id = encodeURIComponent(pending[0]!.id);
    const first = await app.request(`/api/decisions/${id}/voice`, {
      method: 'POST',
      headers: wavHeaders,
      body: await said('delete it'),
    });
    expect(await first.json()).toMatchObject({
      intent: 'delete',
      confirm: true,
      message: expect.stringContaining('yes'),
    });
    expect((await getDecision(fixture.store, pending[0]!.id)).status).toBe('pending');

    const no = await app.request(`/api/decisions/${id}/voice?confirm=delete`, {
      method: 'POST',
      headers: wavHeaders,
      body: await said('no'),
    });
    expect(await no.json()).toMatchObject({ intent: 'no' });
    expect((await getDecision(fixture.store, pending[0]!.id)).status).toBe('pending');

    const yes = await app.request(`/api/decisions/${id}/voice?confirm=delete`, {
      method: 'POST',
      headers: wavHeaders,
      body: await said('yes'),
    });
    expect(await yes.json()).toMatchObject({ intent: 'delete', action: 'delete' });
    expect((await getDecision(fixture.store, pending[0]!.id)).answer?.action).toBe('delete');
  });

  it('changes nothing for an unrelated sentence, a "yes" with nothing to confirm, or a provider that is down', async () => {
    const { app, pending } = await paused();
    const id = encodeURIComponent(pending[0]!.id);
    const unrelated = await app.request(`/api/decisions/${id}/voice`, {
      method: 'POST',
      headers: wavHeaders,
      body: await said('remind me to call my sister'),
    });
    expect(unrelated.status).toBe(200);
    expect(await unrelated.json()).toMatchObject({
      intent: 'none',
      message: expect.stringContaining('nothing was done'),
    });
    const yes = await app.request(`/api/decisions/${id}/voice`, {
      method: 'POST',
      headers: wavHeaders,
      body: await said('yes'),
    });
    expect(await yes.json()).toMatchObject({
      intent: 'yes',
      message: expect.stringContaining('nothing to confirm'),
    });
    const bogus = await app.request(`/api/decisions/${id}/voice?confirm=archive`, {
      method: 'POST',
      headers: wavHeaders,
      body: await said('yes'),
    });
    expect(bogus.status).toBe(422);

    const down = createSpeech(
      { HANDOFF_SPEECH_PROVIDER: 'local', GROQ_BASE_URL: 'http://127.0.0.1:9' },
      { local: new LocalSpeech({ modelDir: '/nonexistent/model' }) },
    );
    const broken = createApp({
      engine: fixture.deps,
      env: loadEnv({ HANDOFF_STATE_DIR: fixture.dir, HANDOFF_API_KEY: KEY }),
      linkKey: { get: async () => Buffer.alloc(32, 7) },
      speech: down,
    });
    const res = await broken.request(`/api/decisions/${id}/voice`, {
      method: 'POST',
      headers: wavHeaders,
      body: await said('archive it'),
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: expect.stringContaining('apt-get install -y pocketsphinx') });
    expect((await listPending(fixture.store)).map((d) => d.id)).toEqual(pending.map((d) => d.id));
  });

  it('takes what the page’s own engine heard (the browser provider) as {"transcript"}, note and all', async () => {
    const { app, pending } = await paused();
    const id = encodeURIComponent(pending[0]!.id);
    const json = { ...auth, 'Content-Type': 'application/json' };
    const res = await app.request(`/api/decisions/${id}/voice`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ transcript: 'Archive it, newsletters can go.' }),
    });
    expect(await res.json()).toMatchObject({
      intent: 'archive',
      action: 'archive',
      note: 'newsletters can go',
    });
    expect((await getDecision(fixture.store, pending[0]!.id)).answer).toMatchObject({
      action: 'archive',
      note: 'newsletters can go',
    });
    const bad = await app.request(`/api/decisions/${encodeURIComponent(pending[1]!.id)}/voice`, {
      method: 'POST',
      headers: json,
      body: '{"text": "archive it"}',
    });
    expect(bad.status).toBe(400);
    expect((await getDecision(fixture.store, pending[1]!.id)).status).toBe('pending');
  });

  it('refuses a decision already answered, before hearing anything', async () => {
    const { app, pending } = await paused();
    const id = encodeURIComponent(pending[0]!.id);
    await app.request(`/api/decisions/${id}/voice`, {
      method: 'POST',
      headers: wavHeaders,
      body: await said('archive it'),
    });
    const again = await app.request(`/api/decisions/${id}/voice`, {
      method: 'POST',
      headers: wavHeaders,
      body: await said('leave it'),
    });
    expect(again.status).toBe(409);
    expect((await getDecision(fixture.store, pending[0]!.id)).answer?.action).toBe('archive');
  });
});
