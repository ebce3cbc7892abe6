/**
 * The platform over a store: the registry of workspaces and an engine per workspace, made
 * by the host (the local wiring in platform.ts, a Lambda function's in shared/aws). Holds no
 * wiring of its own, so a Lambda bundle reaches only the parts its handler gives it.
 */
import type { EngineDeps } from '../runs/deps.ts';
import type { Store } from '../store/store.ts';
import { DEFAULT_WORKSPACE } from './names.ts';
import { WorkspaceRegistry, type Workspace } from './registry.ts';

export interface Platform {
  /** The platform's own records (workspaces, API keys). */
  store: Store;
  registry: WorkspaceRegistry;
  /** The engine of a workspace (by id), made once and kept. */
  engineFor(workspaceId: string): EngineDeps;
  /** Applies `adjust` to every engine made so far and to each one made later (a server's link base). */
  configure(adjust: (engine: EngineDeps) => void): void;
  /** The workspace a name (or, absent, the default) stands for; NotFoundError for an unknown one. */
  resolve(name: string | undefined): Promise<Workspace>;
}

/**
 * How long a Lambda keeps the default workspace's record between requests: it always exists
 * (it cannot be deleted), so only its name, renamed in another process, can be stale.
 */
export const KEEP_DEFAULT_WORKSPACE_MS = 60_000;

/**
 * The platform over its own store (`_platform`), each workspace's engine made by `makeEngine`
 * once. `keepDefaultMs` > 0 keeps the default workspace's record that long (saves a read per request).
 */
export function platformOver(
  store: Store,
  makeEngine: (workspaceId: string) => EngineDeps,
  base?: EngineDeps,
  keepDefaultMs = 0,
): Platform {
  const registry = new WorkspaceRegistry(store);
  const engines = new Map<string, EngineDeps>();
  const adjustments: ((engine: EngineDeps) => void)[] = [];
  let kept: { workspace: Workspace; until: number } | undefined;
  if (base) engines.set(base.workspace, base);
  return {
    store,
    registry,
    engineFor(workspaceId) {
      let engine = engines.get(workspaceId);
      if (!engine) {
        engine = makeEngine(workspaceId);
        for (const adjust of adjustments) adjust(engine);
        engines.set(workspaceId, engine);
      }
      return engine;
    },
    configure(adjust) {
      adjustments.push(adjust);
      for (const engine of engines.values()) adjust(engine);
    },
    async resolve(name) {
      if (name !== undefined) return registry.resolve(name);
      if (kept && kept.until > Date.now()) return kept.workspace;
      const workspace = (await registry.list()).find((w) => w.id === DEFAULT_WORKSPACE)!;
      if (keepDefaultMs > 0) kept = { workspace, until: Date.now() + keepDefaultMs };
      return workspace;
    },
  };
}
