/**
 * The offline model's reply: short and honest, built from the message's facts only (who
 * wrote, what they asked) and marked as an offline draft, since no language model read it.
 */

/** The last line of every offline draft: a person reading it knows no model wrote it. */
export const OFFLINE_DRAFT_MARK =
  '[Offline draft by Handoff, written without a language model from the message itself. Check it before sending.]';

/** What the offline reply is built from. */
export interface ReplyFacts {
  sender_name: string;
  sender: string;
  subject: string;
  text: string;
  /** The person's name, for the sign-off (null: none saved in the profile). */
  me: string | null;
}

const REQUEST = /^(please|can you|could you|would you|will you|let me know|kindly)\b/i;

/** The message's own words, without quoted lines and signature. */
function ownText(text: string): string {
  const lines: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line === '-- ' || line.trim() === '--') break;
    if (/^On .+ wrote:$/.test(line.trim())) break;
    if (!line.trimStart().startsWith('>')) lines.push(line);
  }
  return lines.join(' ').replace(/\s+/g, ' ').trim();
}

/** Up to two things the message asks: its questions, else its requests ("Please send …"). */
export function askedIn(text: string): string[] {
  const sentences = (ownText(text).match(/[^.?!]+[.?!]?/g) ?? []).map((s) => s.trim()).filter(Boolean);
  const questions = sentences.filter((s) => s.endsWith('?'));
  const picked = questions.length > 0 ? questions : sentences.filter((s) => REQUEST.test(s));
  return picked.slice(0, 2).map((s) => (s.length > 200 ? `${s.slice(0, 197)}...` : s));
}

/** How to greet the sender: their first name, else a plain hello. */
function greeting(facts: ReplyFacts): string {
  const first = facts.sender_name.replace(/["']/g, '').trim().split(/\s+/)[0];
  return first && /^\p{L}/u.test(first) ? `Hi ${first},` : 'Hello,';
}

/** The reply body: greeting, what the message was about and asked, a plain promise to follow up. */
export function offlineReply(facts: ReplyFacts): string {
  const subject = facts.subject.replace(/^(re|fwd?):\s*/i, '').trim();
  const asked = askedIn(facts.text);
  const lines = [greeting(facts), ''];
  lines.push(subject ? `Thank you for your message about "${subject}".` : 'Thank you for your message.');
  if (asked.length === 1) lines.push(`You asked: "${asked[0]}"`);
  else if (asked.length > 1) lines.push('You asked:', ...asked.map((a) => `- ${a}`));
  lines.push(
    asked.length > 0
      ? 'I will look into it and answer properly soon.'
      : 'I have read it and will answer properly soon.',
  );
  lines.push('', facts.me ? `Best,\n${facts.me}` : 'Best,', '', OFFLINE_DRAFT_MARK);
  return lines.join('\n');
}
