import type { LinkKey } from './link-key.ts';
import { signDecisionToken } from './decision-token.ts';

/** Builds the deep link a notification carries: `${base}/decide/<id>?token=...`. */
export class DecisionLinks {
  constructor(
    private readonly key: LinkKey,
    private readonly baseUrl: () => string | Promise<string>,
  ) {}

  async urlFor(decisionId: string, expiresAt: Date): Promise<string> {
    const token = signDecisionToken(await this.key.get(), decisionId, expiresAt);
    return `${await this.base()}/decide/${encodeURIComponent(decisionId)}?token=${token}`;
  }

  /** The run's page (the inspector; it asks for the UI password where one is set). */
  async runUrl(runId: string): Promise<string> {
    return `${await this.base()}/runs/${encodeURIComponent(runId)}`;
  }

  private async base(): Promise<string> {
    return (await this.baseUrl()).replace(/\/$/, '');
  }
}
