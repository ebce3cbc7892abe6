import { InvalidInputError, NotFoundError } from '../../errors/index.ts';
import { pathExists } from '../../config/files.ts';
import type { ActionContext, ItemSource, ReadResult, SourceItem } from '../source.ts';
import { archive, deleteMessage, draftReply, MaildirFolders } from './actions.ts';
import { fileTicketFor } from '../tickets.ts';
import { draftArtifact } from '../../artifacts/artifacts.ts';
import { listMailFiles, readMailItem, type MailItem } from './maildir.ts';
import { domainOf } from '../../memory/match.ts';
import { isLookAlike } from '../look-alike.ts';
import { MAILDIR_REF_ACTIONS } from './ref-actions.ts';
import { wordsWithoutModel } from '../../actions/words.ts';

/** A parsed mail message as a source item, with the hints a classifier may use. */
export function toSourceItem(mail: MailItem): SourceItem {
  const senderDomain = domainOf(mail.from.address);
  const hints: string[] = [];
  if (mail.listUnsubscribe) hints.push('list-unsubscribe');
  if (mail.inReplyTo) hints.push('reply');
  if (senderDomain && mail.to.some((to) => domainOf(to) === senderDomain)) hints.push('same-domain');
  const ownDomains = mail.to.flatMap((to) => domainOf(to) ?? []);
  if (senderDomain && ownDomains.some((own) => isLookAlike(senderDomain, own)))
    hints.push('look-alike-domain');
  return {
    id: mail.id,
    ref: mail.file,
    sender: mail.from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    date: mail.date,
    hints,
    fingerprint: mail.fingerprint,
  };
}

/** A real Maildir: items are the messages in new/ and cur/. */
export class MaildirSource implements ItemSource {
  /** Messages read, by file: two messages may share a Message-ID. */
  private readonly mails = new Map<string, MailItem>();
  /** .Archive, .Trash and .Drafts, made once per source (a source lives one run). */
  private readonly folders = new MaildirFolders();
  readonly actsByRef = MAILDIR_REF_ACTIONS;

  constructor(private readonly root: string) {}

  listRefs(): Promise<string[]> {
    return listMailFiles(this.root);
  }

  async read(ref: string): Promise<ReadResult> {
    const result = await readMailItem(ref);
    if (!result.ok) return { ok: false, ref, reason: result.reason };
    this.mails.set(result.item.file, result.item);
    return { ok: true, item: toSourceItem(result.item) };
  }

  async perform(action: string, item: SourceItem, context: ActionContext): Promise<string> {
    switch (action) {
      case 'archive':
        return `archived to ${(await archive(this.root, item.ref, this.folders)).moved_to}`;
      case 'delete':
        return `moved to trash: ${(await deleteMessage(this.root, item.ref, this.folders)).moved_to}`;
      case 'draft_reply': {
        const mail = this.mails.get(item.ref) ?? (await this.reread(item));
        const body = replyBody(item, context);
        const draft = await draftReply(this.root, mail, body, undefined, this.folders);
        context.produced?.(draftArtifact(item, draft.text, draft.draft_path));
        return `draft written to ${draft.draft_path}`;
      }
      case 'file_ticket': {
        return fileTicketFor(item, context);
      }
      default:
        throw new InvalidInputError(`the maildir source cannot ${action}`);
    }
  }

  private async reread(item: SourceItem): Promise<MailItem> {
    const result = await readMailItem(item.ref);
    if (!result.ok && !(await pathExists(item.ref)))
      throw new NotFoundError(
        `gone: ${item.id} is no longer in ${this.root} (moved or deleted meanwhile); nothing done`,
      );
    if (!result.ok) throw new InvalidInputError(`${item.ref}: ${result.reason}`);
    return result.item;
  }
}

/** A reply's body: the words approved for it, else the offline reply from the message. Never the note. */
export function replyBody(item: SourceItem, context: ActionContext): string {
  const words =
    context.words?.action === 'draft_reply' ? context.words : wordsWithoutModel(item, 'draft_reply');
  return words!.body;
}
