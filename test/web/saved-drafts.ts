/** Reading what a run saved to the demo Maildir's Drafts, for the tests of edited drafts. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from '@jest/globals';
import { simpleParser, type ParsedMail } from 'mailparser';
import { listPending } from '../../shared/runs/decision-repository.ts';
import type { Decision } from '../../shared/records/runs.ts';
import type { Harness } from './support.ts';

/** Runs the demo workflow over the API and returns its questions that offer a reply draft. */
export async function questionsWithReplies(h: Harness): Promise<Decision[]> {
  const res = await h.app.request('/api/workflows/inbox-triage/runs', { method: 'POST', headers: h.auth() });
  expect(res.status).toBe(202);
  await h.launcher.idle();
  const pending = await listPending(h.engine.store);
  return pending.filter((d) => d.drafts?.some((w) => w.action === 'draft_reply'));
}

/** The drafted reply of a question. */
export const replyOf = (d: Decision) => d.drafts!.find((w) => w.action === 'draft_reply')!;

/** Skips every question still waiting (over the API), so the run resumes and saves what was approved. */
export async function skipTheRest(h: Harness): Promise<void> {
  for (const d of await listPending(h.engine.store)) {
    const res = await h.app.request(`/api/decisions/${encodeURIComponent(d.id)}`, {
      method: 'POST',
      headers: h.auth({ 'Content-Type': 'application/json' }),
      body: JSON.stringify({ action: 'skip' }),
    });
    expect(res.status).toBe(200);
  }
  await h.launcher.idle();
}

/** The mail files saved to the Maildir's Drafts in reply to the question's message, parsed, with their raw text. */
export async function savedDrafts(
  h: Harness,
  question: Decision,
): Promise<{ mail: ParsedMail; raw: string }[]> {
  const source = h.workflow.source as { path: string };
  const dir = path.join(source.path, '.Drafts', 'cur');
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const all = await Promise.all(
    names.map(async (n) => {
      const raw = await fs.readFile(path.join(dir, n), 'utf8');
      return { mail: await simpleParser(raw), raw };
    }),
  );
  return all.filter((d) => d.mail.inReplyTo === question.item_id);
}

/** The person's own words of a saved reply: the text above the quoted original. */
export const ownWords = (text: string | undefined) =>
  (text ?? '').replace(/\r\n/g, '\n').split(/\n\nOn .+ wrote:\n/)[0]!;

/** A text box's content as a browser reads it (the opening newline dropped, entities decoded). */
export function boxText(page: string, name: string): string | null {
  const box = new RegExp(`<textarea[^>]*name="${name}"[^>]*>([\\s\\S]*?)</textarea>`).exec(page);
  if (!box) return null;
  return box[1]!
    .replace(/^\n/, '')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
