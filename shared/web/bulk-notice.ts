/**
 * The words of a bulk answer's notice (Activity's and the run page's), from the query its
 * redirect carries: `done`, `how`, `refused`, `left`, `learned` (activity-routes.ts).
 */
import { label, plural } from './pages/ui.ts';

const count = (v: string | undefined) => (v && /^\d{1,6}$/.test(v) ? Number(v) : 0);

/** The words of a bulk answer's notice, from its redirect's query (null: there was none). */
export function bulkNotice(query: Record<string, string>): string | null {
  if (query.done === undefined) return null;
  const how = /^[a-z][a-z0-9_]{0,60}$/.test(query.how ?? '') ? query.how! : 'approve_suggested';
  const [done, refused, left, learned] = [query.done, query.refused, query.left, query.learned].map(
    count,
  ) as [number, number, number, number];
  const words: string[] = [];
  if (done === 0 && refused === 0 && left === 0)
    words.push('Nothing was selected: tick the questions first.');
  if (done > 0)
    words.push(
      how === 'approve_suggested'
        ? `Accepted ${plural(done, 'suggestion')}.`
        : `Answered ${plural(done, 'question')}: ${label(how)}.`,
    );
  if (learned > 0) words.push(`Learned ${plural(learned, 'rule')} from them (see Memory).`);
  if (refused > 0)
    words.push(
      `${refused} could not be taken: answered elsewhere, expired, or not an option for that question.`,
    );
  if (left > 0)
    words.push(
      `${plural(left, 'question')} left for you: a suggestion that cannot be undone is answered on its own.`,
    );
  return words.join(' ');
}
