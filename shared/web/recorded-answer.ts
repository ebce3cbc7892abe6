import type { Context } from 'hono';
import { getDecision } from '../runs/decision-repository.ts';
import { learnedOf } from '../runs/learned.ts';
import type { RecordedAnswer } from './pages/recorded-notice.ts';
import type { WebDeps } from './web-deps.ts';

/**
 * The decision named by `?answered=`, when it was answered, and what it taught (for the
 * "Recorded" notice); `?undone=1` after its rule was revoked with Undo.
 */
export async function answeredFrom(c: Context, web: WebDeps): Promise<RecordedAnswer | null> {
  const id = c.req.query('answered');
  if (!id) return null;
  const decision = await getDecision(web.engine.store, id).catch(() => null);
  if (decision?.status !== 'answered') return null;
  const undone = c.req.query('undone') === '1';
  return { decision, learned: await learnedOf(web.engine.store, decision), undone };
}
