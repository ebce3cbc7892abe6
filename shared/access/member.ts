/** The actor a workspace-scoped key stands for: its workspace, and the folders it may read mail from. */
import path from 'node:path';
import type { Env } from '../config/env.ts';
import { workspaceDir } from '../workspaces/layout.ts';
import type { Actor } from './actor.ts';

export function memberOf(
  env: Pick<Env, 'HANDOFF_STATE_DIR' | 'HANDOFF_WORKSPACE_MAIL_ROOT'>,
  workspace: string,
): Actor {
  const roots = [workspaceDir(env.HANDOFF_STATE_DIR, workspace)];
  if (env.HANDOFF_WORKSPACE_MAIL_ROOT)
    roots.push(path.join(path.resolve(env.HANDOFF_WORKSPACE_MAIL_ROOT), workspace));
  return { kind: 'member', workspace, roots };
}
