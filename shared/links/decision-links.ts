import type { LinkKey } from './link-key.ts';
import { signDecisionToken } from './decision-token.ts';
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';

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
    const token = signDecisionToken(await this.key.get(), decisionId, expiresAt, this.workspace);
    return `${await this.base()}/decide/${encodeURIComponent(decisionId)}?token=${token}${this.suffix('&')}`;
  }

  /** The run's page (the inspector; it asks for the UI password where one is set). */
  async runUrl(runId: string): Promise<string> {
    return `${await this.base()}/runs/${encodeURIComponent(runId)}${this.suffix('?')}`;
  }

  private suffix(separator: '?' | '&'): string {
    return this.workspace === DEFAULT_WORKSPACE
      ? ''
      : `${separator}workspace=${encodeURIComponent(this.workspace)}`;
  }

  private async base(): Promise<string> {
    return (await this.baseUrl()).replace(/\/$/, '');
  }
}
