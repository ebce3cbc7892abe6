/** The live feed: a bounded, in-memory window onto runs and chats. The audit log is the record. */
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';

export type RunEventKind =
  | 'started'
  | 'fetched'
  | 'acted'
  | 'deferred'
  | 'handoff'
  | 'memory'
  | 'asked'
  | 'decided'
  | 'resumed'
  | 'completed'
  | 'failed'
  | 'node_start'
  | 'node_end'
  | 'tool_start'
  | 'tool_end'
  | 'repaired'
  | 'retried'
  | 'gave_up';
export type ChatEventKind =
  'delta' | 'tool_start' | 'tool_end' | 'asked' | 'workflow_saved' | 'run_started' | 'done';

export interface FeedEvent {
  seq: number;
  channel: string;
  kind: RunEventKind | ChatEventKind;
  text: string;
  data: Record<string, unknown>;
  at: string;
}

type Listener = (event: FeedEvent) => void;

export const EVENTS_PER_CHANNEL = 400;
export const CHANNELS_KEPT = 50;

/** Bounded feed: the last 400 events of each of the last 50 channels touched. */
export class EventFeed {
  private readonly channels = new Map<string, FeedEvent[]>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private seq = 0;

  constructor(
    private readonly perChannel = EVENTS_PER_CHANNEL,
    private readonly channelsKept = CHANNELS_KEPT,
  ) {}

  emit(
    channel: string,
    kind: FeedEvent['kind'],
    text: string,
    data: Record<string, unknown> = {},
  ): FeedEvent {
    const event: FeedEvent = { seq: ++this.seq, channel, kind, text, data, at: new Date().toISOString() };
    const events = this.channels.get(channel) ?? [];
    this.channels.delete(channel); // re-insert: Map order is recency
    events.push(event);
    if (events.length > this.perChannel) events.splice(0, events.length - this.perChannel);
    this.channels.set(channel, events);
    while (this.channels.size > this.channelsKept) this.channels.delete(this.channels.keys().next().value!);
    for (const listener of this.listeners.get(channel) ?? []) listener(event);
    return event;
  }

  /** Events of a channel after `afterSeq`, oldest first. */
  history(channel: string, afterSeq = 0): FeedEvent[] {
    return (this.channels.get(channel) ?? []).filter((e) => e.seq > afterSeq);
  }

  channelNames(): string[] {
    return [...this.channels.keys()];
  }

  /** Calls `listener` for each new event on the channel; returns the unsubscribe function. */
  subscribe(channel: string, listener: Listener): () => void {
    const set = this.listeners.get(channel) ?? new Set();
    set.add(listener);
    this.listeners.set(channel, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(channel);
    };
  }
}

/**
 * The feed channel of `channel` (a run id, `chat:<id>`) of workspace `workspace`: the default
 * workspace's as it is, any other's prefixed with its id, so two workspaces' equal ids never
 * share a channel. Every writer (the engine's `emit`) and reader of a workspace goes through it.
 */
export function workspaceChannel(workspace: string, channel: string): string {
  return workspace === DEFAULT_WORKSPACE ? channel : `${workspace}/${channel}`;
}

/** The process-wide feed. */
export const feed = new EventFeed();

/** `emit(channel, kind, text, data)` on the process-wide feed. */
export function emit(
  channel: string,
  kind: FeedEvent['kind'],
  text: string,
  data: Record<string, unknown> = {},
): FeedEvent {
  return feed.emit(channel, kind, text, data);
}

/** `emit` into workspace `workspace`'s channels (see workspaceChannel). */
export function emitIn(workspace: string): typeof emit {
  if (workspace === DEFAULT_WORKSPACE) return emit;
  return (channel, kind, text, data = {}) => emit(workspaceChannel(workspace, channel), kind, text, data);
}
