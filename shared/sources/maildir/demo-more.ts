/**
 * "Deliver more demo mail": a fresh day in the demo inbox, so a newcomer sees the next run
 * ask less. Every demo sender writes again (new Message-IDs, today's date), and so does
 * every sender the person answered about, so the rules those answers taught visibly
 * handle their mail without asking.
 */
import type { Decision } from '../../records/runs.ts';
import { DEMO_MESSAGES } from './demo.ts';
import { writeMaildir, type MessageSpec } from './generate.ts';

export { demoMaildirPath, demoWorkflowOf } from './demo-place.ts';

export interface Delivery {
  delivered: number;
  /** Of them, from senders the person answered about (their rules should handle these). */
  fromAnswered: number;
  senders: string[];
}

const addressOf = (sender: string): string => (/<([^>]+)>/.exec(sender)?.[1] ?? sender).trim().toLowerCase();

/** What a person answered about: the mail's sender, subject and snippet. */
export type AnsweredMail = Pick<Decision, 'sender' | 'subject' | 'snippet'>;

/**
 * Writes a fresh day of mail into `maildir`, with the senders of `answered` among it; `now`
 * dates it and keeps its ids unique.
 */
export async function deliverMoreDemoMail(
  maildir: string,
  answered: readonly AnsweredMail[],
  now = new Date(),
): Promise<Delivery> {
  const answeredSenders = new Set(answered.map((d) => addressOf(d.sender)));
  const stamp = now.toISOString().replace(/[-:.TZ]/g, '');
  const day = now.toISOString().slice(0, 10);
  const again = (m: MessageSpec, i: number): MessageSpec => ({
    ...m,
    subject: `${m.subject} (${day})`,
    body: `${m.body}\n\n(${day})`,
    date: new Date(now.getTime() - (DEMO_MESSAGES.length - i) * 60_000),
    messageId: `<more-${stamp}-${i}@demo.handoff.example>`,
  });
  const messages = DEMO_MESSAGES.map(again);
  const demoSenders = new Set(DEMO_MESSAGES.map((m) => m.from.toLowerCase()));
  // Senders the person answered about who are not in the demo (their own test mail) write too.
  const seen = new Set<string>();
  for (const d of answered) {
    const from = addressOf(d.sender);
    if (demoSenders.has(from) || seen.has(from) || !from.includes('@')) continue;
    seen.add(from);
    messages.push({
      from,
      to: 'alex.morgan@northwind.example',
      subject: `Re: ${d.subject}`,
      body: `Hello again,\n\n${d.snippet || 'A follow-up to my last message.'}\n\n(${day})`,
      date: now,
      messageId: `<more-${stamp}-${messages.length}@demo.handoff.example>`,
    });
  }
  await writeMaildir(maildir, messages);
  const senders = messages.map((m) => m.from.toLowerCase());
  return {
    delivered: messages.length,
    fromAnswered: senders.filter((s) => answeredSenders.has(s)).length,
    senders: [...new Set(senders.filter((s) => answeredSenders.has(s)))],
  };
}
