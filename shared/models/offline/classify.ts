/**
 * The offline model's judgement: a deterministic reading of the workflow's
 * instructions against an item's headers and text. A stand-in for a real model,
 * honest about its doubt: it never claims more than 0.95, and it is sure of an item only
 * when the instructions name its kind and facts beyond a few words agree (see signals.ts).
 */
import {
  aboutADelivery,
  asksForPayment,
  asksSomething,
  asksToActIfNotYou,
  calendarMail,
  confirmsPayment,
  dangerOf,
  fromAPerson,
  mentionsMoney,
  sellsSomething,
  toEveryone,
} from './signals.ts';

export interface ItemView {
  id: string;
  from: string;
  name: string;
  subject: string;
  snippet: string;
  hints: string[];
}

export interface Proposal {
  item_id: string;
  action: string;
  confidence: number;
  reasoning: string;
  force_interrupt?: boolean;
}

interface Category {
  name: string;
  /** Words in the instructions that name this kind of item. */
  nouns: RegExp;
  /** Words in an item that suggest it. */
  cues: RegExp;
  hint?: string;
  /** A kind of pull request (an item with the `pull-request` hint), not of mail. */
  pullRequest?: true;
  /**
   * What, beyond a few words, must hold before the model is sure an item is of this kind:
   * null when it holds, else what is missing (said in the reasoning).
   */
  missing: (item: ItemView, text: string, words: string[]) => string | null;
}

const CATEGORIES: Category[] = [
  {
    name: 'newsletter',
    nouns: /newsletters?|digests?|marketing|promotions?/,
    cues: /\b(newsletter|digest|weekly|monthly|edition|unsubscribe|issue #?\d+|this week in)\b/g,
    hint: 'list-unsubscribe',
    missing: (item, _text, words) =>
      !item.hints.includes('list-unsubscribe')
        ? 'it has no List-Unsubscribe header'
        : words.every((w) => w === 'unsubscribe')
          ? 'nothing in its words says it is a newsletter'
          : null,
  },
  {
    name: 'receipt',
    nouns: /receipts?|invoices?|orders?|billing/,
    cues: /\b(receipt|invoice|order|payment|paid|billing|subscription|charged|total)\b/g,
    missing: (item, text) =>
      asksForPayment(text)
        ? 'it asks for a payment rather than confirming one'
        : asksToActIfNotYou(text)
          ? 'it asks you to act if the payment was not yours (as refund scams do)'
          : aboutADelivery(item.subject, text)
            ? 'it is about a delivery, not a payment'
            : !mentionsMoney(text)
              ? 'it names no amount paid'
              : !confirmsPayment(text)
                ? 'nothing in it confirms a payment was made'
                : null,
  },
  {
    name: 'bug report',
    nouns: /bug reports?|bugs?|issues?|crash(es)?|errors?/,
    cues: /\b(bug|error|crash(es|ed)?|exception|stack ?trace|broken|fails?|failing|regression|traceback|500)\b/g,
    missing: (item, text, words) =>
      !fromAPerson(item)
        ? 'it comes from a role or machine address, not a person reporting it'
        : item.hints.includes('list-unsubscribe')
          ? 'it is bulk mail'
          : sellsSomething(text)
            ? 'it reads like someone selling a product'
            : words.length < 2
              ? 'one word is too little to go on'
              : null,
  },
  {
    name: 'colleague',
    nouns: /colleagues?|team(mates)?|coworkers?/,
    cues: /\b(can you|could you|review|meeting|sync|lunch|thoughts|feedback|agenda|tomorrow)\b/g,
    hint: 'same-domain',
    missing: (item, text) =>
      !item.hints.includes('same-domain')
        ? 'the sender is not at your domain'
        : !fromAPerson(item)
          ? 'it comes from a role or machine address, not a colleague'
          : calendarMail(item.subject)
            ? 'it is a calendar invitation (answered in the calendar)'
            : toEveryone(text)
              ? 'it is addressed to everyone, not to you'
              : !asksSomething(text)
                ? 'it asks you nothing'
                : null,
  },
  {
    name: 'dependency bump',
    nouns: /dependency (bumps?|updates?)|dependabot|renovate/,
    cues: /\b(bumps?|deps|dependency|dependencies)\b/g,
    hint: 'bot-author',
    pullRequest: true,
    missing: (item, text) =>
      !item.hints.includes('bot-author')
        ? 'a person, not a dependency bot, opened it'
        : !/\bfrom v?\d[\w.-]* to v?\d[\w.-]*/.test(text)
          ? 'it names no version change'
          : null,
  },
  {
    name: 'docs change',
    nouns: /\bdocs\b|documentation/,
    cues: /\b(docs?|documentation|readme|typos?)\b/g,
    hint: 'small-change',
    pullRequest: true,
    missing: (item) =>
      !/^docs(\([^)]*\))?!?:/i.test(item.subject)
        ? 'its title does not mark it as docs only'
        : !item.hints.includes('small-change')
          ? 'it changes more than a few lines'
          : null,
  },
];

/** How each hint reads as a fact in a reason. */
const HINT_FACT: Record<string, string> = {
  'list-unsubscribe': 'List-Unsubscribe header',
  'same-domain': 'sender at your domain',
  'bot-author': 'opened by a bot',
  'small-change': 'a small change',
};

/** What matched, as facts: the item's hint for the kind, then the words, e.g. `List-Unsubscribe header; words "weekly", "digest"`. */
function matched(category: Category, words: readonly string[], item: ItemView): string {
  const facts: string[] = [];
  if (category.hint && item.hints.includes(category.hint))
    facts.push(HINT_FACT[category.hint] ?? category.hint);
  if (words.length > 0)
    facts.push(`${words.length === 1 ? 'word' : 'words'} ${words.map((w) => `"${w}"`).join(', ')}`);
  return facts.join('; ') || `looks like a ${category.name}`;
}

const PITCH = /\b(partnership|partner with|collaboration|synergy|opportunity|investment)\b/;

const VERBS: [RegExp, string][] = [
  [/\barchiv/, 'archive'],
  [/\bfile\b.*\btickets?\b|\btickets?\b/, 'file_ticket'],
  [/\bdraft\b.*\brepl|\brepl(y|ies)\b/, 'draft_reply'],
  [/\bdelete|\btrash/, 'delete'],
];

/** Labelling a pull request: an integration's label tool, when the workflow declares one. */
const LABEL_VERB = /\blabel/;
const LABEL_ACTION = /__(add_labels?|add_labels_to_issue|update_issue)$/;

/** Which action the instructions give each category, e.g. "archive newsletters" → newsletter: archive. */
export function readInstructions(instructions: string, actions: string[]): Map<string, string> {
  const plan = new Map<string, string>();
  const clauses = instructions.toLowerCase().split(/[.;\n]|,(?![^(]*\))/);
  let lastAction: string | null = null;
  for (const clause of clauses) {
    const label = LABEL_VERB.test(clause) ? actions.find((a) => LABEL_ACTION.test(a)) : undefined;
    const action: string | null =
      VERBS.find(([verb, name]) => verb.test(clause) && actions.includes(name))?.[1] ?? label ?? lastAction;
    if (!action) continue;
    lastAction = action;
    for (const category of CATEGORIES)
      if (category.nouns.test(clause) && !plan.has(category.name)) plan.set(category.name, action);
  }
  return plan;
}

function score(category: Category, item: ItemView): { points: number; words: string[]; evidence: string[] } {
  // A pull request is never a newsletter, and a mail never a dependency bump.
  if ((category.pullRequest === true) !== item.hints.includes('pull-request'))
    return { points: 0, words: [], evidence: [] };
  const text = `${item.subject}\n${item.snippet}`.toLowerCase();
  const words = [...new Set(text.match(category.cues) ?? [])];
  // A pull request's size or author alone says nothing of its kind: its hint counts beside words.
  const hinted =
    category.hint !== undefined &&
    item.hints.includes(category.hint) &&
    (category.pullRequest !== true || words.length > 0);
  return {
    points: words.length + (hinted ? 2 : 0),
    words,
    evidence: hinted ? [...words, category.hint!] : words,
  };
}

/** The kinds of item a text names, e.g. "Receipts and invoices" → receipt. */
export function categoriesNamedIn(text: string): string[] {
  const lower = text.toLowerCase();
  return CATEGORIES.filter((c) => c.nouns.test(lower)).map((c) => c.name);
}

/** The kind of item this most looks like, or null when nothing fits or it looks like phishing. */
export function categoryOf(item: ItemView): string | null {
  if (dangerOf(item, `${item.subject}\n${item.snippet}`.toLowerCase())) return null;
  const ranked = CATEGORIES.map((c) => ({ name: c.name, points: score(c, item).points }))
    .filter((s) => s.points > 0)
    .sort((a, b) => b.points - a.points);
  return ranked[0]?.name ?? null;
}

/** Confidence when sure: from 0.75, a little more for each further piece of evidence, never above 0.95. */
function sureConfidence(points: number): number {
  return Math.min(0.95, 0.75 + 0.05 * Math.max(0, points - 1));
}

/** Confidence when unsure: always below any sensible threshold (at most 0.5). */
function unsureConfidence(points: number): number {
  return Math.min(0.5, 0.3 + 0.05 * points);
}

/**
 * One proposal for one item. It is sure (0.75 or more) only when the instructions name the
 * item's kind, nothing in the item points to another kind, and the facts that kind needs
 * hold (a List-Unsubscribe header for a newsletter, an amount paid for a receipt, a person
 * for a bug report or a colleague); otherwise it asks, below the threshold.
 */
export function classify(item: ItemView, plan: Map<string, string>, fallbackAction: string): Proposal {
  const text = `${item.subject}\n${item.snippet}`.toLowerCase();
  const danger = dangerOf(item, text);
  if (danger) {
    return {
      item_id: item.id,
      action: 'skip',
      confidence: 0.2,
      force_interrupt: true,
      reasoning: `${danger} → possible phishing: leave it alone (not touched without you)`,
    };
  }
  const ranked = CATEGORIES.map((c) => ({ category: c, ...score(c, item) }))
    .filter((s) => s.points > 0)
    .sort((a, b) => b.points - a.points);
  const best = ranked[0];
  const action = best ? plan.get(best.category.name) : undefined;
  if (!best || !action) {
    const pitch = PITCH.test(text);
    return {
      item_id: item.id,
      action: fallbackAction,
      confidence: pitch ? 0.35 : 0.3,
      reasoning: pitch
        ? `word "${text.match(PITCH)?.[0] ?? 'deal'}" from ${item.from}: a lead or a pitch, the instructions do not say → asking (${fallbackAction}?)`
        : best
          ? `${matched(best.category, best.words, item)}; the instructions name no ${best.category.name}s → asking (${fallbackAction}?)`
          : `nothing the instructions name matched "${item.subject}" from ${item.from} → asking (${fallbackAction}?)`,
    };
  }
  const kind = best.category.name;
  const rival = ranked[1];
  const missing = rival
    ? `it also reads like a ${rival.category.name} (${matched(rival.category, rival.words, item)})`
    : best.category.missing(item, text, best.words);
  const looks = `${matched(best.category, best.words, item)}; instructions name ${kind}s → ${action}`;
  return {
    item_id: item.id,
    action,
    confidence:
      Math.round((missing ? unsureConfidence(best.points) : sureConfidence(best.points)) * 100) / 100,
    reasoning: missing ? `${looks}, but ${missing} → asking` : looks,
  };
}
