import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { waitFor } from '../support/wait-for.ts';
import { feed, type FeedEvent } from '../../shared/events/feed.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { decide } from '../../shared/runs/decide.ts';
import { createApp } from '../../shared/web/app.ts';
import { API_KEY, makeHarness, readSse, type Harness } from './support.ts';

let h: Harness;

beforeEach(async () => {
  h = await makeHarness();
});

afterEach(async () => {
  jest.restoreAllMocks();
  await h.cleanup();
});

async function waitingRun(): Promise<string> {
  const res = await h.app.request('/api/workflows/inbox-triage/runs', { method: 'POST', headers: h.auth() });
  const { run_id } = (await res.json()) as { run_id: string };
  await h.launcher.idle();
  return run_id;
}

describe('GET /events/:runId', () => {
  it('needs the API key, as a bearer token or ?key=', async () => {
    const runId = await waitingRun();
    expect((await h.app.request(`/events/${runId}`)).status).toBe(401);
    expect((await h.app.request(`/events/${runId}?key=wrong`)).status).toBe(401);
    const res = await h.app.request(`/events/${runId}`, { headers: h.auth() });
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });

  it('where responses are buffered (API Gateway), answers 501 naming what to poll instead of hanging', async () => {
    const runId = await waitingRun();
    const buffered = createApp({ engine: h.engine, env: h.env, runner: h.launcher, liveFeed: 'poll' });
    const res = await buffered.request(`/events/${runId}`, { headers: h.auth() });
    expect(res.status).toBe(501);
    expect(await res.json()).toEqual({
      error: `live events are not streamed by this deployment (its gateway buffers responses): poll GET /api/runs/${runId} instead`,
    });
  });

  it('404s an unknown run', async () => {
    const res = await h.app.request(`/events/run_nope?key=${API_KEY}`);
    expect(res.status).toBe(404);
  });

  it('replays the run so far as typed events with ids', async () => {
    const runId = await waitingRun();
    const res = await h.app.request(`/events/${runId}?key=${API_KEY}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const { events } = await readSse(res.body!, (e) => e.event === 'asked' || e.event === 'completed');
    expect(events[0]?.event).toBe('started');
    expect(events.at(-1)?.event).toBe('asked');
    const history = feed.history(runId);
    expect(events.map((e) => Number(e.id))).toEqual(history.slice(0, events.length).map((e) => e.seq));
    const asked = JSON.parse(events.at(-1)!.data) as FeedEvent;
    expect(asked).toMatchObject({ channel: runId, kind: 'asked', seq: Number(events.at(-1)!.id) });
  });

  it('honours Last-Event-ID, then streams live events until the run completes, and unsubscribes on disconnect', async () => {
    const runId = await waitingRun();
    const askedSeq = feed.history(runId).find((e) => e.kind === 'asked')!.seq;
    const unsubscribed = jest.fn();
    const subscribe = feed.subscribe.bind(feed);
    jest.spyOn(feed, 'subscribe').mockImplementation((channel, listener) => {
      const off = subscribe(channel, listener);
      return () => {
        unsubscribed();
        off();
      };
    });
    const res = await h.app.request(`/events/${runId}`, {
      headers: h.auth({ 'Last-Event-ID': String(askedSeq) }),
    });
    const reading = readSse(res.body!, (e) => e.event === 'completed');
    for (const d of await listPending(h.engine.store)) await decide(h.engine, d.id, 'skip', null);
    const { events } = await reading;
    expect(events.length).toBeGreaterThan(1);
    expect(events.every((e) => Number(e.id) > askedSeq)).toBe(true);
    expect(events.map((e) => e.event)).toContain('decided');
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({
      kind: 'completed',
      data: { status: 'completed' },
    });
    await waitFor(() => expect(unsubscribed).toHaveBeenCalledTimes(1));
  });

  it('sends a keep-alive comment when the run is quiet', async () => {
    const runId = await waitingRun();
    jest.useFakeTimers({
      doNotFake: [
        'Date',
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
      ],
    });
    try {
      const res = await h.app.request(`/events/${runId}?key=${API_KEY}`);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (!text.includes('event: asked')) text += decoder.decode((await reader.read()).value);
      const next = reader.read();
      await jest.advanceTimersByTimeAsync(15_000);
      expect(decoder.decode((await next).value)).toBe(': keep-alive\n\n');
      await reader.cancel();
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('the inspector page and its live stream', () => {
  it('never starts its stream after an event the page does not show (the feed is read before the run)', async () => {
    const runId = await waitingRun();
    // The run ends while the page is being built: after one read of the store, an event arrives.
    let injected: FeedEvent | undefined;
    const get = h.engine.store.get.bind(h.engine.store);
    jest.spyOn(h.engine.store, 'get').mockImplementation(async (collection, id) => {
      const record = await get(collection, id);
      if (collection === 'runs' && !injected) injected = feed.emit(runId, 'completed', 'Run completed', {});
      return record;
    });
    const page = await (await h.app.request(`http://127.0.0.1:3000/runs/${runId}`)).text();
    expect(injected).toBeDefined();
    expect(page).toContain('data-live="sse"'); // the page shows the run as it was read: not finished
    const after = Number(/data-after="(\d+)"/.exec(page)?.[1]);
    // The stream resumes after `after`, so the event that ended the run is still sent to the page.
    expect(after).toBeLessThan(injected!.seq);
  });
});
