/**
 * A workflow's preview: read up to N real items from its source and show, per item, what
 * the gate would do with them (act, ask, or a rule decides). It claims nothing and acts on
 * nothing: only `listRefs` and `read` are called, with no store (so no IMAP watermark moves).
 */
import { errorMessage } from '../errors/index.ts';
import type { Credentials } from '../credentials/credentials.ts';
import { judge, type GatePolicy } from '../gate/verdict.ts';
import { findCoveringRule } from '../memory/match.ts';
import { sourceKeyOf } from '../memory/source-key.ts';
import { liveRulesFor } from '../memory/rules-repository.ts';
import { keysForSender, ruleKeysReady, rulesUnder } from '../memory/rule-keys.ts';
import { classify, readInstructions } from '../models/offline/classify.ts';
import { compactView } from '../agents/executor/tools.ts';
import type { PreviewRow } from '../chats/chat-records.ts';
import { openSource } from '../sources/open-source.ts';
import { EVENT_NOTE } from '../sources/check.ts';
import { readInBatches, type ItemSource } from '../sources/source.ts';
import type { Store } from '../store/store.ts';
import type { Workflow } from '../workflows/schema.ts';

/** Items a preview reads when not told. */
export const PREVIEW_LIMIT = 10;

export type Preview =
  | { ok: true; workflow_id: string; count: number; rows: PreviewRow[]; note?: string }
  | { ok: false; workflow_id: string; error: string };

export interface PreviewDeps {
  store: Store;
  credentials: Credentials;
  threshold: number;
  /** Opens the source for reading; tests may pass their own. */
  open?: (workflow: Workflow) => ItemSource;
}

/**
 * Reads the first `limit` items and judges each with the gate's own verdict and rule recall.
 * The proposal per item is the offline reading of the workflow's instructions. Never throws
 * for a source it cannot reach: the result says why in one line.
 */
export async function previewWorkflow(
  deps: PreviewDeps,
  workflow: Workflow,
  limit = PREVIEW_LIMIT,
): Promise<Preview> {
  if (workflow.source.type === 'event')
    return { ok: true, workflow_id: workflow.id, count: 0, rows: [], note: EVENT_NOTE };
  const policy: GatePolicy = {
    threshold: workflow.confidence_threshold ?? deps.threshold,
    actions: new Map(workflow.actions.map((a) => [a.name, { irreversible: a.irreversible }])),
  };
  const names = workflow.actions.map((a) => a.name);
  const plan = readInstructions(workflow.instructions, names);
  const fallback = names.find((a) => a !== 'delete') ?? 'skip';
  let source: ItemSource | undefined;
  try {
    source = deps.open
      ? deps.open(workflow)
      : openSource(workflow, {
          run: { id: 'preview', trigger: { kind: 'manual', detail: null } },
          credentials: deps.credentials,
        });
    const refs = await source.listRefs();
    const rows: PreviewRow[] = [];
    // One round trip for a remote source (IMAP: one UID FETCH of the first `limit`).
    const reads = [];
    for await (const read of readInBatches(source, refs.slice(0, limit), limit)) reads.push(read);
    const rules = await rulesForItems(
      deps.store,
      workflow,
      reads.flatMap((r) => (r.ok ? [r.item.sender.address] : [])),
    );
    for (const read of reads) {
      if (!read.ok) {
        rows.push({
          item_id: read.ref,
          sender: '',
          subject: '(unreadable)',
          verdict: 'ask',
          action: 'skip',
          reason: read.reason,
        });
        continue;
      }
      const item = read.item;
      const proposal = classify(compactView(item), plan, fallback);
      const rule = findCoveringRule(
        rules,
        workflow.id,
        { senderAddress: item.sender.address, subject: item.subject, text: item.text },
        sourceKeyOf(workflow),
      );
      const verdict = judge(
        {
          action: proposal.action,
          confidence: proposal.confidence,
          forceInterrupt: proposal.force_interrupt,
        },
        policy,
        rule,
      );
      rows.push({
        item_id: item.id,
        sender: item.sender.address || item.sender.name,
        subject: item.subject,
        verdict: verdict.kind === 'rewrite' ? 'rule' : verdict.kind === 'act' ? 'act' : 'ask',
        action: verdict.action,
        reason:
          verdict.kind === 'rewrite'
            ? `your rule: ${verdict.rule.pattern ?? describeMatch(verdict.rule.match)} → ${verdict.action}`
            : verdict.kind === 'defer'
              ? `asks you (${verdict.reason.replace('_', ' ')}): ${proposal.reasoning}`
              : proposal.reasoning,
      });
    }
    return { ok: true, workflow_id: workflow.id, count: refs.length, rows };
  } catch (error) {
    return { ok: false, workflow_id: workflow.id, error: errorMessage(error).replace(/\s+/g, ' ').trim() };
  } finally {
    await source?.close?.().catch(() => undefined);
  }
}

/**
 * The live rules that can fire on items from `senders`: by the keys of what they match (one
 * batched read, as a run reads them), or every rule of the workflow in a workspace whose rules
 * are not indexed yet (until `handoff store migrate`).
 */
async function rulesForItems(store: Store, workflow: Workflow, senders: readonly string[]) {
  const sourceKey = sourceKeyOf(workflow);
  if (!(await ruleKeysReady(store))) return liveRulesFor(store, workflow.id, sourceKey);
  return rulesUnder(
    store,
    senders.flatMap((sender) => keysForSender(workflow.id, sender, sourceKey)),
  );
}

function describeMatch(match: Record<string, unknown>): string {
  if (typeof match.sender === 'string') return `from ${match.sender}`;
  if (typeof match.domain === 'string') return `anything from ${match.domain}`;
  return `keywords ${(match.keywords as string[]).join(', ')}`;
}
