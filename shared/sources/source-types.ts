/**
 * What each source type can do to its items, as data. A workflow may declare only these
 * actions (plus `skip`, always available) or an integration's `<entry>__<tool>`; a new
 * source (IMAP, webhook events) adds its entry here with the actions its adapter performs.
 */
export const SOURCE_TYPES = {
  maildir: { actions: ['archive', 'delete', 'draft_reply', 'file_ticket'] },
  imap: { actions: ['archive', 'delete', 'draft_reply', 'file_ticket'] },
} as const satisfies Record<string, { actions: readonly string[] }>;

/** A source type a workflow may name. */
export type SourceType = keyof typeof SOURCE_TYPES;

/** Whether a source of this type can carry out the action itself. */
export function sourceCan(type: SourceType, action: string): boolean {
  return (SOURCE_TYPES[type].actions as readonly string[]).includes(action);
}
