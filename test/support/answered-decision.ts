import type { Decision } from '../../shared/records/runs.ts';

let seq = 0;

/**
 * A question about an overdue invoice from ana@vendor.example, answered `action` (with `note`)
 * a moment ago; each call a new id and item. `over` replaces any other field.
 */
export function answeredDecision(
  over: Partial<Decision> & { action: string; note?: string | null },
): Decision {
  seq += 1;
  const { action, note, ...rest } = over;
  return {
    id: `dec_${seq}`,
    version: 2,
    run_id: 'run_1',
    interrupt_id: 'int_1',
    workflow_id: 'inbox',
    item_id: `<item${seq}@x>`,
    sender: 'ana@vendor.example',
    subject: 'Invoice 4411 is overdue',
    snippet: 'Your invoice for March is overdue; the payment link is below.',
    suggested_action: 'archive',
    confidence: 0.4,
    reasoning: 'unsure',
    reason: 'low_confidence',
    options: ['archive', 'file_ticket', 'draft_reply', 'skip'],
    status: 'answered',
    answer: { action, note: note ?? null, by: 'human', at: new Date().toISOString() },
    created_at: new Date().toISOString(),
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    ...rest,
  };
}
