/**
 * Who is making a change. An **administrator** (the local owner: the CLI, a page session;
 * an unscoped API key; an IAM caller on AWS; the product itself) may set anything. A
 * **member** (a caller with a workspace-scoped API key) configures its own workspace only:
 * what names a program, a path on the host or a private network address is refused
 * (admin-settings.ts). The actor travels with the request's async context, so every save
 * reached from it (a route, the assistant's tools) is checked, whoever calls it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export type Actor =
  | { kind: 'administrator' }
  | {
      kind: 'member';
      /** The workspace id the key is limited to. */
      workspace: string;
      /** Folders its workflows may read mail from: its workspace's own, and any the administrator allowed. */
      roots: readonly string[];
    };

export const ADMINISTRATOR: Actor = { kind: 'administrator' };

const actors = new AsyncLocalStorage<Actor>();

/** Runs `fn` (and everything it starts) as `actor`. */
export function runAs<T>(actor: Actor, fn: () => T): T {
  return actors.run(actor, fn);
}

/** The actor of the current request; outside one, the process's own (an administrator). */
export function currentActor(): Actor {
  return actors.getStore() ?? ADMINISTRATOR;
}
