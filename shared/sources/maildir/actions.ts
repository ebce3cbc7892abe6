/**
 * What an agent may do to a Maildir message once a person (or a rule) said yes.
 * Moves are renames within one filesystem; nothing is ever sent.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InvalidInputError, NotFoundError } from '../../errors/index.ts';
import { bracket, formatAddress, formatDate, renderMessage } from './generate.ts';
import { ensureMaildir, uniqueName, uniquePart, type MailItem } from './maildir.ts';
import { pathExists } from '../../config/files.ts';

export interface MoveResult {
  moved_from: string;
  moved_to: string;
}

export interface DraftResult {
  draft_path: string;
  message_id: string;
  /** The draft as written (RFC 5322). */
  text: string;
}

/**
 * The target folders (`.Archive`, `.Trash`, `.Drafts`) one source has made: each is made on
 * its first use, not before every action, and made again when a write finds it gone.
 */
export class MaildirFolders {
  private readonly made = new Set<string>();

  /**
   * Runs `write` into the Maildir folder `dir`, making the folder first if this instance has
   * not made it yet. When `write` fails with ENOENT and `sourceThere` (if given) still holds,
   * the folder is made again and `write` tried once more (someone removed the folder under a
   * running run); otherwise, and on a second ENOENT, the error is thrown.
   */
  async writeInto<T>(dir: string, write: () => Promise<T>, sourceThere?: () => Promise<boolean>): Promise<T> {
    if (!this.made.has(dir)) await this.make(dir);
    try {
      return await write();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      if (sourceThere && !(await sourceThere())) throw err;
      await this.make(dir);
      return write();
    }
  }

  private async make(dir: string): Promise<void> {
    await ensureMaildir(dir);
    this.made.add(dir);
  }
}

/**
 * Moves a message from `<root>/new` or `<root>/cur` to `<root>/.Archive/cur`. Pass the
 * source's `folders` so the folder is made once per run, not per message.
 */
export async function archive(
  root: string,
  file: string,
  folders = new MaildirFolders(),
): Promise<MoveResult> {
  return moveToFolder(root, file, '.Archive', folders);
}

/** Moves a message to `<root>/.Trash/cur` (a person can still restore it from there). */
export async function deleteMessage(
  root: string,
  file: string,
  folders = new MaildirFolders(),
): Promise<MoveResult> {
  return moveToFolder(root, file, '.Trash', folders);
}

/**
 * Writes a reply to `item` into `<root>/.Drafts/cur/<unique>:2,D` (via tmp/).
 * From: `fromAddress`, else the original To address, else `me@localhost`.
 */
export async function draftReply(
  root: string,
  item: MailItem,
  body: string,
  fromAddress?: string,
  folders = new MaildirFolders(),
): Promise<DraftResult> {
  const { text, messageId } = replyMessage(item, body, fromAddress);
  const drafts = join(root, '.Drafts');
  const draftPath = await folders.writeInto(drafts, async () => {
    const name = uniqueName();
    const tmp = join(drafts, 'tmp', name);
    const dest = join(drafts, 'cur', `${name}:2,D`);
    writeFileSync(tmp, text, { flag: 'wx' });
    renameSync(tmp, dest);
    return dest;
  });
  return { draft_path: draftPath, message_id: messageId, text };
}

/**
 * An RFC 5322 reply to `item` (To the sender, `Re:` subject, `In-Reply-To`/`References`,
 * the original quoted). From: `fromAddress`, else the original To address, else `me@localhost`.
 */
export function replyMessage(
  item: MailItem,
  body: string,
  fromAddress?: string,
): { text: string; messageId: string } {
  const from = fromAddress ?? item.to[0] ?? 'me@localhost';
  const domain = /@([^@\s>]+)$/.exec(from)?.[1] ?? 'localhost';
  const messageId = `<handoff.${Date.now().toString(36)}.${randomBytes(6).toString('hex')}@${domain}>`;
  const headers: Record<string, string> = {};
  if (item.messageId) {
    headers['In-Reply-To'] = item.messageId;
    headers['References'] = [...item.references.filter((r) => r !== item.messageId), item.messageId]
      .map(bracket)
      .join(' ');
  }
  const text = renderMessage({
    from,
    to: formatAddress(item.from.address, item.from.name),
    subject: /^re:/i.test(item.subject.trim()) ? item.subject.trim() : `Re: ${item.subject.trim()}`,
    body: `${body.trimEnd()}\n\n${quoteOriginal(item)}`,
    date: new Date(),
    messageId,
    headers,
  });
  return { text, messageId };
}

/** Moves a message of the root Maildir into `<root>/<folder>/cur`, marking it seen if it was new. */
async function moveToFolder(
  root: string,
  file: string,
  folder: string,
  folders: MaildirFolders,
): Promise<MoveResult> {
  const from = resolve(file);
  const sub = basename(dirname(from));
  if (dirname(dirname(from)) !== resolve(root) || (sub !== 'new' && sub !== 'cur')) {
    throw new InvalidInputError(`${file}: not a message in ${root}/new or ${root}/cur`);
  }
  const target = join(resolve(root), folder);
  let name = sub === 'new' ? withSeenFlag(basename(from)) : basename(from);
  if (!name.includes(':2,')) name += ':2,';
  // On this thread, like the reads: a thread-pool round trip costs more than a rename in one folder tree.
  const move = async (): Promise<string> => {
    let dest = join(target, 'cur', name);
    for (let n = 1; existsSync(dest); n += 1) {
      dest = join(target, 'cur', `${uniquePart(name)}.${n}${name.slice(uniquePart(name).length)}`);
    }
    renameSync(from, dest);
    return dest;
  };
  try {
    return { moved_from: from, moved_to: await folders.writeInto(target, move, () => pathExists(from)) };
  } catch (err) {
    // ENOENT with the message gone (or with the folder just made again).
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new NotFoundError(
        `gone: ${basename(file)} is no longer in ${root} (moved or deleted meanwhile): message not found; nothing done`,
        { cause: err },
      );
    }
    throw err;
  }
}

/** Adds the Seen flag to a Maildir name (`unique` becomes `unique:2,S`; flags stay sorted). */
function withSeenFlag(name: string): string {
  const i = name.indexOf(':2,');
  if (i < 0) return `${name}:2,S`;
  const flags = new Set(name.slice(i + 3));
  flags.add('S');
  return `${name.slice(0, i)}:2,${[...flags].sort().join('')}`;
}

/** "On <date>, <sender> wrote:" followed by the original text, each line prefixed with "> ". */
function quoteOriginal(item: MailItem): string {
  const when = item.date ? formatDate(new Date(item.date)) : 'an earlier date';
  const who = item.from.name ? `${item.from.name} <${item.from.address}>` : item.from.address;
  const quoted = item.text
    .trimEnd()
    .split(/\r?\n/)
    .map((l) => (l.startsWith('>') ? `>${l}` : `> ${l}`))
    .join('\n');
  return `On ${when}, ${who} wrote:\n${quoted}`;
}
