/** Relays a run's feed as server-sent events (for the API's `/events/:runId` and the inspector's stream). */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { feed, workspaceChannel, type FeedEvent } from '../events/feed.ts';

/** Interval of the SSE keep-alive comment. */
export const KEEP_ALIVE_MS = 15_000;

type SseStream = Parameters<Parameters<typeof streamSSE>[1]>[0];

/**
 * Streams the run's events after `Last-Event-ID` (a reconnecting EventSource sends it) or
 * else after `fallbackAfter`, then live ones until the client goes away.
 */
export function streamRun(c: Context, runId: string, fallbackAfter?: string): Response {
  const lastSeen = Number(c.req.header('Last-Event-ID') ?? fallbackAfter ?? 0);
  return streamSSE(c, (stream) => relayFeed(runId, Number.isFinite(lastSeen) ? lastSeen : 0, stream));
}

/** Replays the run's feed after `lastSeen`, then relays live events until the client goes away. */
async function relayFeed(runId: string, lastSeen: number, stream: SseStream): Promise<void> {
  const queue: FeedEvent[] = [];
  let wake: (() => void) | undefined;
  // Subscribe before replaying so nothing emitted in between is lost; seq dedupes.
  const unsubscribe = feed.subscribe(runId, (event) => {
    queue.push(event);
    wake?.();
  });
  stream.onAbort(() => wake?.());
  try {
    queue.unshift(...feed.history(runId, lastSeen));
    while (!stream.aborted) {
      const event = queue.shift();
      if (event) {
        if (event.seq <= lastSeen) continue;
        lastSeen = event.seq;
        await stream.writeSSE({ event: event.kind, data: JSON.stringify(event), id: String(event.seq) });
        continue;
      }
      const woken = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), KEEP_ALIVE_MS);
        wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
      wake = undefined;
      if (!woken && !stream.aborted) await stream.write(': keep-alive\n\n');
    }
  } finally {
    unsubscribe();
  }
}

/**
 * Streams the run where this deployment can (`sse`); where responses are buffered (API
 * Gateway in front of Lambda, `poll`) a stream would hang until the gateway's timeout,
 * so it answers 501 naming what to poll instead.
 */
export function streamRunWhereLive(
  c: Context,
  live: 'sse' | 'poll',
  workspace: string,
  runId: string,
  fallbackAfter?: string,
): Response {
  if (live === 'poll')
    return c.json(
      {
        error: `live events are not streamed by this deployment (its gateway buffers responses): poll GET /api/runs/${runId} instead`,
      },
      501,
    );
  return streamRun(c, workspaceChannel(workspace, runId), fallbackAfter);
}
