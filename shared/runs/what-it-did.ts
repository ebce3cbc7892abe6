/**
 * "What it did": one row per item a run settled (acted on, left alone, failed, handed over),
 * with who decided: the model on its own confidence, a rule (named by its pattern) or the
 * person. Read from the run's own audit entries (a read by the run's key), a page at a time.
 */
import type { AuditEntry } from '../records/audit.ts';
import { RuleSchema, type Rule } from '../records/rule.ts';
import { getRecords } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { ruleWords } from './learned.ts';

/** Rows the run page shows at a time. */
export const DID_PER_PAGE = 50;

/** Who decided an item: the model above the threshold, a rule, the person, or nobody (expired, unreadable). */
export type DecidedByWords = 'confident' | 'rule' | 'you' | 'nobody';

export interface DidRow {
  item_id: string;
  subject: string;
  /** Null on entries written before audit entries carried the sender. */
  sender: string | null;
  action: string | null;
  outcome: AuditEntry['outcome'];
  decided_by: DecidedByWords;
  /** For a rule: its pattern as the person reads it ("Anything from vendor.com → archive"). */
  rule: string | null;
  detail: string | null;
  at: string;
}

export interface DidPage {
  rows: DidRow[];
  /** Items settled in all. */
  total: number;
  /** This page (0-based) and how many there are. */
  page: number;
  pages: number;
}

const NOT_SETTLED = new Set<AuditEntry['outcome']>(['run_started', 'run_finished', 'handed_off']);

/** The entries that say how an item was settled (not a run's start or end, nor a handoff on the way). */
export function itemEntries(audit: readonly AuditEntry[]): AuditEntry[] {
  return audit.filter((e) => e.item_id !== null && !NOT_SETTLED.has(e.outcome));
}

function decidedBy(entry: AuditEntry): DecidedByWords {
  if (entry.decided_by === 'memory') return 'rule';
  if (entry.decided_by === 'human') return 'you';
  if (entry.decided_by === 'model') return 'confident';
  return 'nobody';
}

function patternOf(rule: Rule | undefined): string | null {
  if (!rule) return null;
  return rule.pattern ?? ruleWords(rule);
}

/**
 * Page `page` (0-based, clamped) of what the run did, oldest first, from its audit entries
 * (`auditOfRun`: one keyed read). Only the rules the page names are read, by id.
 */
export async function whatItDid(store: Store, audit: readonly AuditEntry[], page: number): Promise<DidPage> {
  const entries = itemEntries(audit);
  const pages = Math.max(1, Math.ceil(entries.length / DID_PER_PAGE));
  const shown = Math.min(Math.max(0, Math.floor(page) || 0), pages - 1);
  const slice = entries.slice(shown * DID_PER_PAGE, (shown + 1) * DID_PER_PAGE);
  const ruleIds = [...new Set(slice.map((e) => e.rule_id).filter((id): id is string => id !== null))];
  const rules = await getRecords(store, 'rules', RuleSchema, ruleIds);
  const byId = new Map(ruleIds.map((id, i) => [id, rules[i]]));
  const rows = slice.map((e): DidRow => ({
    item_id: e.item_id!,
    subject: e.subject ?? e.item_id!,
    sender: e.sender ?? null,
    action: e.action,
    outcome: e.outcome,
    decided_by: decidedBy(e),
    rule: e.rule_id ? (patternOf(byId.get(e.rule_id)) ?? `rule ${e.rule_id}`) : null,
    detail: e.detail,
    at: e.at,
  }));
  return { rows, total: entries.length, page: shown, pages };
}
