/**
 * What a workflow reads, as a key rules are kept under: a rule learned about a sender belongs
 * to the mailbox the mail came from, so every workflow reading that mailbox uses it
 * (docs/rules-by-source.md). A source read by one workflow only (a webhook's events) is keyed
 * by that workflow.
 */
import type { Rule } from '../records/rule.ts';

/** The parts of a workflow's `source:` that say which mailbox it reads. */
export type SourceOf =
  | { type: 'maildir'; path: string }
  | { type: 'imap'; user: string; host: string; mailbox?: string | undefined }
  | { type: string };

/** The source key of a workflow: `maildir:<path>`, `imap:user@host/mailbox`, or `event:<workflow id>`. */
export function sourceKeyOf(workflow: { id: string; source: SourceOf }): string {
  const { source } = workflow;
  if (source.type === 'maildir' && 'path' in source) return `maildir:${normalisePath(source.path)}`;
  if (source.type === 'imap' && 'host' in source) {
    const user = source.user.trim().toLowerCase();
    const host = source.host.trim().toLowerCase().replace(/\.$/, '');
    return `imap:${user}@${host}/${source.mailbox ?? 'INBOX'}`;
  }
  return `${source.type}:${workflow.id}`;
}

/** A path written as the same folder compares equal: one slash between parts, none at the end. */
function normalisePath(path: string): string {
  const trimmed = path
    .trim()
    .replace(/\/{2,}/g, '/')
    .replace(/\/\.(?=\/|$)/g, '');
  return trimmed.length > 1 ? trimmed.replace(/\/$/, '') : trimmed;
}

/** Where a rule applies: the workflows reading a source, one workflow, or every workflow. */
export type RuleReach =
  { kind: 'source'; key: string } | { kind: 'workflow'; id: string } | { kind: 'every' };

/**
 * Where `rule` applies. A rule written before rules belonged to sources (no `source_key`)
 * stays with its workflow; one the person scoped to its workflow does too.
 */
export function reachOf(rule: Pick<Rule, 'workflow_id' | 'source_key' | 'scope'>): RuleReach {
  if (rule.source_key && rule.scope !== 'workflow') return { kind: 'source', key: rule.source_key };
  return rule.workflow_id === null ? { kind: 'every' } : { kind: 'workflow', id: rule.workflow_id };
}

/** The prefix of the rule keys of a source's rules (`src:<source key>`); a workflow id never has a colon. */
export const sourceScope = (sourceKey: string) => `src:${sourceKey}`;

/** Whether `rule` may fire in workflow `workflowId` reading source `sourceKey` (null: unknown). */
export function ruleApplies(
  rule: Pick<Rule, 'workflow_id' | 'source_key' | 'scope'>,
  workflowId: string,
  sourceKey: string | null,
): boolean {
  const reach = reachOf(rule);
  if (reach.kind === 'every') return true;
  if (reach.kind === 'workflow') return reach.id === workflowId;
  return reach.key === sourceKey;
}

/** How a rule's reach reads to the person: "mailbox maildir:/mail/inbox", "workflow triage", "every workflow". */
export function reachWords(rule: Pick<Rule, 'workflow_id' | 'source_key' | 'scope'>): string {
  const reach = reachOf(rule);
  if (reach.kind === 'source') return `every workflow reading ${reach.key}`;
  if (reach.kind === 'workflow') return `only workflow ${reach.id}`;
  return 'every workflow';
}
