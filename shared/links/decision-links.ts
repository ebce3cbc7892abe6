import type { LinkKey } from './link-key.ts';
import { signDecisionToken } from './decision-token.ts';
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';

/** `?workspace=<id>` (or `&...`) outside the default workspace, else nothing. */
function workspaceSuffix(separator: '?' | '&', workspace: string): string {
  return workspace === DEFAULT_WORKSPACE ? '' : `${separator}workspace=${encodeURIComponent(workspace)}`;
}

/** `/decide/<id>?token=...[&workspace=<id>]`: a signed link to one decision of one workspace. */
export function decisionPath(key: Buffer, decisionId: string, expiresAt: Date, workspace: string): string {
  const token = signDecisionToken(key, decisionId, expiresAt, workspace);
  return `/decide/${encodeURIComponent(decisionId)}?token=${token}${workspaceSuffix('&', workspace)}`;
}

/**
 * Builds the deep link a notification carries: `${base}/decide/<id>?token=...`, plus
 * `&workspace=<id>` outside the default workspace (the token is bound to it too).
 */
export class DecisionLinks {
  constructor(
    private readonly key: LinkKey,
    private readonly baseUrl: () => string | Promise<string>,
    private readonly workspace: string = DEFAULT_WORKSPACE,
  ) {}

  async urlFor(decisionId: string, expiresAt: Date): Promise<string> {
    return `${await this.base()}${decisionPath(await this.key.get(), decisionId, expiresAt, this.workspace)}`;
  }

  /** The run's page (the inspector; it asks for the UI password where one is set). */
  async runUrl(runId: string): Promise<string> {
    return `${await this.base()}/runs/${encodeURIComponent(runId)}${workspaceSuffix('?', this.workspace)}`;
  }

  /** The Schedules page of this workspace. */
  async schedulesUrl(): Promise<string> {
    return `${await this.base()}/schedules${workspaceSuffix('?', this.workspace)}`;
  }

  private async base(): Promise<string> {
    return (await this.baseUrl()).replace(/\/$/, '');
  }
}
