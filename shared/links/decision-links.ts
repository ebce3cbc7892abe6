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
    return `${(await this.baseUrl()).replace(/\/$/, '')}/decide/${encodeURIComponent(decisionId)}?token=${token}`;
  }
}
