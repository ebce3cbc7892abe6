/** The Maildir actions that need only the message's file (its ref): the moves. */
export const MAILDIR_REF_ACTIONS: ReadonlySet<string> = new Set(['archive', 'delete']);
