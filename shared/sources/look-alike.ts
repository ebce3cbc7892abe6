/**
 * Look-alike domains: a sender's domain made to pass for the recipient's own
 * (`northwlnd.example`, `northwind-support.example`, `northwind.example.co` for
 * `northwind.example`).
 */

/** Edit distance between two short strings (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length]!;
}

/** Second-level labels under which names are registered (`northwind.co.uk`): part of the suffix, not a name. */
const SECOND_LEVEL = new Set(['co', 'com', 'org', 'net', 'ac', 'gov', 'edu', 'ne', 'or']);

/**
 * The labels of a domain that are names, without its suffix (the top-level label, and a
 * registry's second level such as `co.uk`): `mail`, `northwind` for `mail.northwind.example`.
 */
function namesOf(domain: string): string[] {
  const labels = domain.split('.').filter(Boolean);
  if (labels.length <= 1) return labels;
  const suffix = labels.length >= 3 && SECOND_LEVEL.has(labels[labels.length - 2]!) ? 2 : 1;
  return labels.slice(0, labels.length - suffix);
}

/** The registered name of a domain: `northwind` for `mail.northwind.example` or `northwind.co.uk`. */
function nameOf(domain: string): string {
  return namesOf(domain).at(-1) ?? domain;
}

/**
 * True when `sender` is not `own` (nor its parent or one of its subdomains) but is made to look like it:
 * its name, or a word of one of its names, is own's name or an edit or two from it (none under
 * six letters, two from ten), or contains own's name with something added. Only names are
 * compared, never suffixes: mail from `colleague.example` does not look like `example.org`.
 */
export function isLookAlike(sender: string, own: string): boolean {
  const s = sender.toLowerCase();
  const o = own.toLowerCase();
  if (s === o || s.endsWith(`.${o}`) || o.endsWith(`.${s}`)) return false;
  const mine = nameOf(o);
  if (mine.length < 4) return false;
  const theirs = nameOf(s);
  // Short names are too close to ordinary words (mail, news) to allow an edit.
  const edits = mine.length >= 10 ? 2 : mine.length >= 6 ? 1 : 0;
  const near = (part: string) => part === mine || (edits > 0 && distance(part, mine) <= edits);
  const words = namesOf(s).flatMap((name) => name.split('-'));
  return near(theirs) || words.some(near) || theirs.startsWith(mine) || theirs.endsWith(mine);
}
