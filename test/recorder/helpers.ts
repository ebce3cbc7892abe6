import type { ModelStreamEvent, Usage } from '@strands-agents/sdk';
import type { Message, StreamOptions } from '@strands-agents/sdk';
import type { Collection, Store } from '../../shared/store/store.ts';
import { ScriptedModel, type Script } from '../support/scripted-model.ts';

/** A scripted model that remembers the usage it reported for each turn, under a chosen model id. */
export class MeteredModel extends ScriptedModel {
  readonly usage: Usage[] = [];

  constructor(script: Script, modelId: string) {
    super(script);
    this.updateConfig({ modelId });
  }

  override async *stream(messages: Message[], options?: StreamOptions): AsyncIterable<ModelStreamEvent> {
    for await (const event of super.stream(messages, options)) {
      if (event.type === 'modelMetadataEvent' && event.usage) this.usage.push(event.usage);
      yield event;
    }
  }
}

/** A store that counts its writes per collection. */
export function countingStore(store: Store): { store: Store; writes: Map<Collection, number> } {
  const writes = new Map<Collection, number>();
  const count = (c: Collection) => writes.set(c, (writes.get(c) ?? 0) + 1);
  return {
    writes,
    store: {
      get: (c, id) => store.get(c, id),
      list: (c) => store.list(c),
      listWithStatus: (c, s) => store.listWithStatus(c, s),
      create: (c, r) => (count(c), store.create(c, r)),
      update: (c, r, v) => (count(c), store.update(c, r, v)),
      put: (c, r) => (count(c), store.put(c, r)),
      delete: (c, id) => store.delete(c, id),
    },
  };
}

/** One store call: what was done, where, and to which id. */
export interface StoreCall {
  op: 'get' | 'list' | 'listWithStatus' | 'create' | 'update' | 'put' | 'delete';
  collection: Collection;
  id?: string;
}

/** A store that logs every call it passes on, so a test can count them. */
export function loggingStore(store: Store): { store: Store; calls: StoreCall[] } {
  const calls: StoreCall[] = [];
  const log = (op: StoreCall['op'], collection: Collection, id?: string) =>
    calls.push({ op, collection, ...(id === undefined ? {} : { id }) });
  return {
    calls,
    store: {
      get: (c, id) => (log('get', c, id), store.get(c, id)),
      list: (c) => (log('list', c), store.list(c)),
      listWithStatus: (c, s) => (log('listWithStatus', c), store.listWithStatus(c, s)),
      create: (c, r) => (log('create', c, r.id), store.create(c, r)),
      update: (c, r, v) => (log('update', c, r.id), store.update(c, r, v)),
      put: (c, r) => (log('put', c, r.id), store.put(c, r)),
      delete: (c, id) => (log('delete', c, id), store.delete(c, id)),
    },
  };
}
