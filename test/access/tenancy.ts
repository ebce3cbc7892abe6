/**
 * A server the two-tenant suite attacks, and what its owner can do to it: the local server
 * (`handoff start`, the CLI as the owner) or the Lambda app (an administrator on the table).
 */
export interface Tenancy {
  kind: 'local' | 'lambda';
  url: string;
  /** A key that opens every workspace. */
  adminKey: string;
  /** Makes a workspace and a key scoped to it. */
  workspaceWithKey(name: string): Promise<{ id: string; key: string }>;
  addWorkspace(name: string): Promise<{ id: string }>;
  removeWorkspace(name: string): Promise<void>;
  renameWorkspace(from: string, to: string): Promise<void>;
  setCredential(workspace: string, name: string, value: string): Promise<void>;
  /** Everything stored for workspace `id` (its files, or its table items), by content. */
  stateOf(id: string): Promise<unknown>;
  /** The processes the server has started. */
  children(): string[];
  /** Carries run `runId` of `workspace` on until it pauses (where steps are dispatched, runs them). */
  pause(workspace: string, runId: string): Promise<void>;
  /** What the server has told people so far (console notices, SNS messages). */
  notices(): string;
  stop(): Promise<void>;
}
