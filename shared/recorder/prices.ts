/** USD per million tokens, in and out. */
export interface Price {
  input: number;
  output: number;
}

/**
 * List prices (on-demand, USD per 1M tokens) for the model ids Handoff is configured
 * with most often. Checked against the providers' public price pages in 2025; a
 * missing id is priced at null and flagged, never guessed.
 */
export const PRICES: Readonly<Record<string, Price>> = {
  // The offline model runs in-process: free.
  'handoff-offline': { input: 0, output: 0 },
  // Bedrock (a cross-region prefix such as `us.` or `global.` is stripped before lookup).
  'anthropic.claude-sonnet-4-6': { input: 3, output: 15 },
  'anthropic.claude-sonnet-4-5-20250929-v1:0': { input: 3, output: 15 },
  'anthropic.claude-sonnet-4-20250514-v1:0': { input: 3, output: 15 },
  'anthropic.claude-3-7-sonnet-20250219-v1:0': { input: 3, output: 15 },
  'anthropic.claude-3-5-sonnet-20241022-v2:0': { input: 3, output: 15 },
  'anthropic.claude-haiku-4-5-20251001-v1:0': { input: 1, output: 5 },
  'anthropic.claude-3-5-haiku-20241022-v1:0': { input: 0.8, output: 4 },
  'anthropic.claude-3-haiku-20240307-v1:0': { input: 0.25, output: 1.25 },
  'amazon.nova-pro-v1:0': { input: 0.8, output: 3.2 },
  'amazon.nova-lite-v1:0': { input: 0.06, output: 0.24 },
  'amazon.nova-micro-v1:0': { input: 0.035, output: 0.14 },
  // Anthropic API.
  'claude-sonnet-4-6': { input: 3, output: 15 },
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-sonnet-4-20250514': { input: 3, output: 15 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  'claude-3-5-haiku-latest': { input: 0.8, output: 4 },
  'claude-3-5-haiku-20241022': { input: 0.8, output: 4 },
  // OpenAI.
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  // Groq.
  'llama-3.1-8b-instant': { input: 0.05, output: 0.08 },
  'llama-3.3-70b-versatile': { input: 0.59, output: 0.79 },
};

const REGION_PREFIX = /^(us|eu|apac|jp|au|ca|us-gov|global)\./;

/** The price of a model id, or null when the table does not know it. */
export function priceOf(modelId: string, table: Readonly<Record<string, Price>> = PRICES): Price | null {
  return table[modelId] ?? table[modelId.replace(REGION_PREFIX, '')] ?? null;
}

/** What a call cost in USD (to a millionth of a dollar), or null when the model is not priced. */
export function costOf(
  modelId: string,
  usage: { inputTokens: number; outputTokens: number },
  table: Readonly<Record<string, Price>> = PRICES,
): number | null {
  const price = priceOf(modelId, table);
  if (!price) return null;
  return roundUsd((usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000);
}

/** Rounds to a millionth of a dollar, so sums of many small costs stay readable. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1_000_000) / 1_000_000;
}
