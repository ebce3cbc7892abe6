import { describe, expect, it } from '@jest/globals';
import { MemoryStore } from '../../bench/memory-store.ts';
import type { Collection } from '../../shared/store/store.ts';
import { platformOver } from '../../shared/workspaces/platform.ts';

/** The platform's store, counting the lists of workspaces it is asked for. */
function countingStore() {
  const store = new MemoryStore();
  const lists: Collection[] = [];
  const list = store.list.bind(store);
  store.list = (collection) => {
    lists.push(collection);
    return list(collection);
  };
  return { store, lists };
}

const noEngine = () => {
  throw new Error('resolving a workspace makes no engine');
};

describe('resolving the default workspace', () => {
  it('reads it once while a Lambda keeps it, and a named workspace every time', async () => {
    const { store, lists } = countingStore();
    const platform = platformOver(store, noEngine, undefined, 60_000);
    await platform.registry.add('team-b');
    lists.length = 0;

    const first = await platform.resolve(undefined);
    const second = await platform.resolve(undefined);
    expect(first).toMatchObject({ id: 'default' });
    expect(second).toEqual(first);
    expect(lists).toEqual(['workspaces']);

    expect(await platform.resolve('team-b')).toMatchObject({ name: 'team-b' });
    await expect(platform.resolve('gone')).rejects.toThrow('no workspace "gone"');
    expect(lists).toEqual(['workspaces', 'workspaces', 'workspaces']);
  });

  it('reads it on every request when nothing keeps it (a local server sees a rename at once)', async () => {
    const { store, lists } = countingStore();
    const platform = platformOver(store, noEngine);
    await platform.resolve(undefined);
    await platform.registry.rename('default', 'home');
    expect(await platform.resolve(undefined)).toMatchObject({ id: 'default', name: 'home' });
    expect(lists.filter((c) => c === 'workspaces').length).toBeGreaterThanOrEqual(3);
  });
});
