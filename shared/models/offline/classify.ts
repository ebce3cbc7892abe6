/**
 * The offline model's judgement: a deterministic reading of the workflow's
 * instructions against an item's headers and text. A stand-in for a real model,
 * honest about its doubt: it never claims more than 0.95.
 */
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
}

const CATEGORIES: Category[] = [
  {
    name: 'newsletter',
    nouns: /newsletters?|digests?|marketing|promotions?/,
    cues: /\b(newsletter|digest|weekly|monthly|edition|unsubscribe|issue #?\d+|this week in)\b/g,
    hint: 'list-unsubscribe',
  },
  {
    name: 'receipt',
    nouns: /receipts?|invoices?|orders?|billing/,
    cues: /\b(receipt|invoice|order|payment|paid|billing|subscription|charged|total)\b/g,
  },
  {
    name: 'bug report',
    nouns: /bug reports?|bugs?|issues?|crash(es)?|errors?/,
    cues: /\b(bug|error|crash(es|ed)?|exception|stack ?trace|broken|fails?|failing|regression|traceback|500)\b/g,
  },
  {
    name: 'colleague',
    nouns: /colleagues?|team(mates)?|coworkers?/,
    cues: /\b(can you|could you|review|meeting|sync|lunch|thoughts|feedback|agenda|tomorrow)\b/g,
    hint: 'same-domain',
  },
];

const SUSPICIOUS =
  /\b(verify your (account|identity)|password (expires|reset)|account (suspended|locked)|wire transfer|gift cards?|confirm your (credentials|login)|unusual sign-in)\b/;
const PITCH = /\b(partnership|partner with|collaboration|synergy|opportunity|investment)\b/;

const VERBS: [RegExp, string][] = [
  [/\barchiv/, 'archive'],
  [/\bfile\b.*\btickets?\b|\btickets?\b/, 'file_ticket'],
  [/\bdraft\b.*\brepl|\brepl(y|ies)\b/, 'draft_reply'],
  [/\bdelete|\btrash/, 'delete'],
];

/** Which action the instructions give each category, e.g. "archive newsletters" → newsletter: archive. */
export function readInstructions(instructions: string, actions: string[]): Map<string, string> {
  const plan = new Map<string, string>();
  const clauses = instructions.toLowerCase().split(/[.;\n]|,(?![^(]*\))/);
  let lastAction: string | null = null;
  for (const clause of clauses) {
    const action: string | null =
      VERBS.find(([verb, name]) => verb.test(clause) && actions.includes(name))?.[1] ?? lastAction;
    if (!action) continue;
    lastAction = action;
    for (const category of CATEGORIES)
      if (category.nouns.test(clause) && !plan.has(category.name)) plan.set(category.name, action);
  }
  return plan;
}

function score(category: Category, item: ItemView): { points: number; evidence: string[] } {
  const text = `${item.subject}\n${item.snippet}`.toLowerCase();
  const evidence = [...new Set(text.match(category.cues) ?? [])];
  const hinted = category.hint !== undefined && item.hints.includes(category.hint);
  return {
    points: evidence.length + (hinted ? 2 : 0),
    evidence: hinted ? [...evidence, category.hint!] : evidence,
  };
}

/** The kinds of item a text names, e.g. "Receipts and invoices" → receipt. */
export function categoriesNamedIn(text: string): string[] {
  const lower = text.toLowerCase();
  return CATEGORIES.filter((c) => c.nouns.test(lower)).map((c) => c.name);
}

/** The kind of item this most looks like, or null when nothing fits or it looks like phishing. */
export function categoryOf(item: ItemView): string | null {
  if (SUSPICIOUS.test(`${item.subject}\n${item.snippet}`.toLowerCase())) return null;
  const ranked = CATEGORIES.map((c) => ({ name: c.name, points: score(c, item).points }))
    .filter((s) => s.points > 0)
    .sort((a, b) => b.points - a.points);
  return ranked[0]?.name ?? null;
}

/** One proposal for one item. */
export function classify(item: ItemView, plan: Map<string, string>, fallbackAction: string): Proposal {
  const text = `${item.subject}\n${item.snippet}`.toLowerCase();
  if (SUSPICIOUS.test(text)) {
    return {
      item_id: item.id,
      action: 'skip',
      confidence: 0.2,
      force_interrupt: true,
      reasoning: `"${item.subject}" from ${item.from} asks for credentials or money; it looks like phishing, so I suggest leaving it alone and will not touch it without you.`,
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
        ? `Unknown sender ${item.from} pitching a ${text.match(PITCH)?.[0] ?? 'deal'}; I can't tell if this is a legitimate lead or phishing.`
        : `Nothing in the instructions covers "${item.subject}" from ${item.from}; I would be guessing.`,
    };
  }
  const runnerUp = ranked[1]?.points ?? 0;
  const margin = best.points - runnerUp;
  const confidence = Math.min(
    0.95,
    0.5 + 0.12 * best.points + (margin >= 2 ? 0.1 : 0) - (runnerUp > 0 ? 0.15 : 0),
  );
  return {
    item_id: item.id,
    action,
    confidence: Math.round(confidence * 100) / 100,
    reasoning: `Looks like a ${best.category.name} (${best.evidence.join(', ')}); the instructions say to ${action.replace('_', ' ')} those.${
      runnerUp > 0 ? ` It also reads a little like a ${ranked[1]!.category.name}.` : ''
    }`,
  };
}
