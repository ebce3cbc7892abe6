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

/** The name part of a domain: `northwind` for `mail.northwind.example`. */
function nameOf(domain: string): string {
  const labels = domain.split('.');
  return labels.length >= 2 ? labels[labels.length - 2]! : domain;
}

/**
 * True when `sender` is not `own` (nor its parent or one of its subdomains) but is made to look like it:
 * its name, or a word of it, is own's name or an edit or two from it (none under six letters,
 * two from ten), or contains own's name with something added.
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
  return near(theirs) || s.split(/[.-]/).some(near) || theirs.startsWith(mine) || theirs.endsWith(mine);
}
