/**
 * Where a workspace's JSON files live: `<HANDOFF_STATE_DIR>/workspaces/<id>/`, each a
 * JSON-file store of its own (own lock, own journal). Platform records live in the
 * reserved `_platform` workspace beside them. Keys (credentials.key, the link key) and the
 * demo mail stay at the top of the state directory.
 */
import path from 'node:path';

export const WORKSPACES_DIR = 'workspaces';

/** The directory of one workspace's records. */
export function workspaceDir(stateDir: string, workspaceId: string): string {
  return path.join(stateDir, WORKSPACES_DIR, workspaceId);
}
