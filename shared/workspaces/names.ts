/**
 * Workspace names. A workspace is known by a short name people type (`--workspace team-a`,
 * `X-Handoff-Workspace: team-a`); its records are kept under an id fixed when it was made,
 * so a rename never moves data.
 */
import { InvalidInputError } from '../errors/index.ts';

/** The workspace every installation has, and where single-workspace state migrates to. */
export const DEFAULT_WORKSPACE = 'default';
/** Reserved: the platform-wide records (the workspaces themselves, API keys). Never a workspace. */
export const PLATFORM_WORKSPACE = '_platform';

const NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;

/** The name, or InvalidInputError saying what a name may be. */
export function checkWorkspaceName(name: string): string {
  if (!NAME.test(name))
    throw new InvalidInputError(
      `workspace name ${JSON.stringify(name)} is not valid: use 1-40 lowercase letters, digits and hyphens, starting with a letter or digit`,
    );
  return name;
}
