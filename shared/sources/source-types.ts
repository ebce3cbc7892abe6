/**
 * What each source type can do to its items, as data. A workflow may declare only these
 * actions (plus `skip`, always available) or an integration's `<entry>__<tool>`; a new
 * source (IMAP, webhook events) adds its entry here with the actions its adapter performs.
 */
export const SOURCE_TYPES = {
  // A folder on this machine: a Lambda function has none.
  maildir: { actions: ['archive', 'delete', 'draft_reply', 'file_ticket'], runsOnLambda: false },
  // Items carried in by a webhook: acting on them is an integration's job, not the source's.
  // A mailbox reached over the network: works from a laptop and from the Lambda functions.
  imap: { actions: ['archive', 'delete', 'draft_reply', 'file_ticket'], runsOnLambda: true },
  event: { actions: ['file_ticket'], runsOnLambda: true },
} as const satisfies Record<string, { actions: readonly string[]; runsOnLambda: boolean }>;

/** A source type a workflow may name. */
export type SourceType = keyof typeof SOURCE_TYPES;

/** Whether a source of this type can carry out the action itself. */
export function sourceCan(type: SourceType, action: string): boolean {
  return (SOURCE_TYPES[type].actions as readonly string[]).includes(action);
}

/**
 * Why a deployed (Lambda) Handoff cannot use a source of this type, in one line naming the
 * types that work there; null when it can.
 */
export function lambdaSourceProblem(type: SourceType): string | null {
  if (SOURCE_TYPES[type].runsOnLambda) return null;
  const usable = (Object.keys(SOURCE_TYPES) as SourceType[]).filter((t) => SOURCE_TYPES[t].runsOnLambda);
  return `a Lambda function has no local folders: source type ${type} works only on a laptop; use ${usable.join(' or ')}`;
}
