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

/** The name, or InvalidInputError saying what a name may be (and suggesting one, e.g. "Team Ops" → `team-ops`). */
export function checkWorkspaceName(name: string): string {
  if (!NAME.test(name)) {
    const suggestion = suggestWorkspaceName(name);
    const hint = suggestion && suggestion !== name ? `; try "${suggestion}"` : '';
    throw new InvalidInputError(
      `workspace name ${JSON.stringify(name)} is not valid: use 1-40 lowercase letters, digits and hyphens, starting with a letter or digit${hint}`,
    );
  }
  return name;
}

/** A valid name made from what a person typed ("Team Ops" → `team-ops`), or null when nothing is left. */
export function suggestWorkspaceName(typed: string): string | null {
  const slug = typed
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return NAME.test(slug) ? slug : null;
}
