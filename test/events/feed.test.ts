import { describe, expect, it } from '@jest/globals';
import { CHANNELS_KEPT, EVENTS_PER_CHANNEL, EventFeed } from '../../shared/events/feed.ts';

describe('the live feed', () => {
  it('keeps the last 400 events of a channel', () => {
    const feed = new EventFeed();
    for (let i = 0; i < EVENTS_PER_CHANNEL + 25; i++) feed.emit('run_1', 'acted', `item ${i}`);
    const history = feed.history('run_1');
    expect(history).toHaveLength(EVENTS_PER_CHANNEL);
    expect(history[0]!.text).toBe('item 25');
    expect(history.at(-1)!.text).toBe(`item ${EVENTS_PER_CHANNEL + 24}`);
  });

  it('keeps the 50 channels touched most recently', () => {
    const feed = new EventFeed();
    for (let i = 0; i < CHANNELS_KEPT + 5; i++) feed.emit(`run_${i}`, 'started', 'go');
    feed.emit('run_5', 'acted', 'still here'); // touched again: now the most recent
    expect(feed.channelNames()).toHaveLength(CHANNELS_KEPT);
    expect(feed.history('run_0')).toEqual([]);
    expect(feed.history('run_5').map((e) => e.text)).toEqual(['go', 'still here']);
    feed.emit('run_new', 'started', 'go');
    expect(feed.history('run_6')).toEqual([]); // the oldest untouched one went first
    expect(feed.history('run_5')).toHaveLength(2);
  });

  it('delivers new events to subscribers of their channel only, with data and increasing seq', () => {
    const feed = new EventFeed();
    const seen: string[] = [];
    const stop = feed.subscribe('chat:1', (e) => seen.push(`${e.kind}:${e.text}`));
    feed.emit('chat:1', 'delta', 'Hel', { n: 1 });
    feed.emit('run_9', 'acted', 'elsewhere');
    const last = feed.emit('chat:1', 'done', 'Hello');
    stop();
    feed.emit('chat:1', 'delta', 'after unsubscribe');
    expect(seen).toEqual(['delta:Hel', 'done:Hello']);
    expect(feed.history('chat:1', last.seq - 1).map((e) => e.text)).toEqual(['Hello', 'after unsubscribe']);
    expect(feed.history('chat:1')[0]!.data).toEqual({ n: 1 });
  });
});
