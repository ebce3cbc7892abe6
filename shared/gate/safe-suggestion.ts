/**
 * What the person is offered first for an item the agent set aside because it may be
 * dangerous: never an action that hides or changes it (archive, delete, a reply), only
 * leaving it alone or a ticket.
 */

/** The actions that leave a dangerous item where the person will see it. */
export const SAFE_ACTIONS: ReadonlySet<string> = new Set(['skip', 'file_ticket']);

/** Words an agent uses when it thinks an item is dangerous (read broadly: erring makes the suggestion skip). */
const DANGER =
  /\b(phish\w*|suspicious|suspect(ed)?|scam\w*|spoof\w*|look-?alike|fraud\w*|impersonat\w*|malicious|malware)\b/i;

/** True when the agent's reasoning marks the item as possibly dangerous. */
export function looksDangerous(reasoning: string): boolean {
  return DANGER.test(reasoning);
}

/**
 * The suggestion to show the person for a set-aside item: unchanged, unless the reasoning
 * marks the item as dangerous and the suggestion is not a safe action, in which case it
 * becomes `skip` and the reasoning says why.
 */
export function safeSuggestion(proposal: { action: string; reasoning: string }): {
  action: string;
  reasoning: string;
} {
  if (SAFE_ACTIONS.has(proposal.action) || !looksDangerous(proposal.reasoning)) return proposal;
  const was = proposal.action ? `"${proposal.action.replace(/_/g, ' ')}"` : 'an action';
  return {
    action: 'skip',
    reasoning: `${proposal.reasoning} (Suggesting skip instead of ${was}: an item that may be dangerous is left where you can see it.)`,
  };
}
