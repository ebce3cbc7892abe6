/**
 * An IMAP mailbox as an item source. Refs are `<uidvalidity>:<uid>`; a page of items is one
 * UID FETCH; actions find the message again (by UID, or by Message-ID when UIDVALIDITY
 * changed) and change only that one message.
 */
import type { ImapFlow } from 'imapflow';
import type { Credentials } from '../../credentials/credentials.ts';
import { HandoffError, InvalidInputError } from '../../errors/index.ts';
import type { ImapSourceConfig } from '../../workflows/schema.ts';
import { replyMessage } from '../maildir/actions.ts';
import { fileTicketFor } from '../tickets.ts';
import { parseMail, type MailItem } from '../maildir/maildir.ts';
import { toSourceItem } from '../maildir/maildir-source.ts';
import type { ActionContext, ItemSource, ReadResult, SourceItem } from '../source.ts';
import { splitItemId } from '../source.ts';
import { ImapError, ImapUnavailableError, connectImap, type ImapOptions } from './connection.ts';
import { noteListed, promoteListed, readWatermark, type MailboxStatus } from './watermark.ts';
import type { Store } from '../../store/store.ts';

/** Where the source keeps its watermark (see watermark.ts). */
export interface WatermarkPlace {
  store: Store;
  workflowId: string;
  runId: string;
}

/** The message an action was for is no longer in the mailbox: nothing was done. */
export class GoneError extends HandoffError {}

const SPECIAL = {
  archive: { flag: '\\Archive', setting: 'archive_mailbox' },
  delete: { flag: '\\Trash', setting: 'trash_mailbox' },
  draft_reply: { flag: '\\Drafts', setting: 'drafts_mailbox' },
} as const;

/** An IMAP mailbox; connects on first use, one connection until `close`. */
export class ImapSource implements ItemSource {
  private client: ImapFlow | null = null;
  private opening: Promise<ImapFlow> | null = null;
  private readonly mails = new Map<string, MailItem>();
  private folders: Map<string, string> | null = null;
  /** The mailbox as it was when its refs were listed (the run's watermark). */
  private listedStatus: MailboxStatus | null = null;

  constructor(
    private readonly config: ImapSourceConfig,
    private readonly credentials: Credentials,
    private readonly watermark: WatermarkPlace | null = null,
    private readonly options: ImapOptions = {},
  ) {}

  /** One STATUS against the stored watermark: false only when the mailbox is as last seen. */
  async mayHaveNew(): Promise<boolean> {
    if (!this.watermark) return true;
    const seen = await readWatermark(this.watermark.store, this.watermark.workflowId);
    if (!seen) return true;
    const now = await this.status();
    return now.uidValidity !== seen.uidValidity || now.uidNext !== seen.uidNext;
  }

  /** The run completed: the mailbox state it listed is what the next `mayHaveNew` compares with. */
  async markSeen(): Promise<void> {
    if (this.watermark)
      await promoteListed(this.watermark.store, this.watermark.workflowId, this.watermark.runId);
  }

  /** One STATUS round trip: the mailbox's UIDVALIDITY and UIDNEXT. */
  async status(): Promise<MailboxStatus> {
    const client = await this.connection();
    const status = await this.guard(() =>
      client.status(this.config.mailbox, { uidNext: true, uidValidity: true }).catch((error: unknown) => {
        throw this.noMailbox(error);
      }),
    );
    if (!status) throw new ImapError(`the IMAP server gave no STATUS for "${this.config.mailbox}"`);
    return { uidValidity: String(status.uidValidity ?? ''), uidNext: Number(status.uidNext ?? 0) };
  }

  async listRefs(): Promise<string[]> {
    const client = await this.selected();
    const uids = await this.guard(() => client.search({ all: true }, { uid: true }));
    const validity = String(client.mailbox ? client.mailbox.uidValidity : '');
    this.listedStatus = {
      uidValidity: validity,
      uidNext: Number(client.mailbox ? client.mailbox.uidNext : 0),
    };
    if (this.watermark) {
      const { store, workflowId, runId } = this.watermark;
      await noteListed(store, workflowId, runId, this.listedStatus);
    }
    return (uids || []).sort((a, b) => a - b).map((uid) => `${validity}:${uid}`);
  }

  async read(ref: string): Promise<ReadResult> {
    return (await this.readMany([ref]))[0]!;
  }

  /** Reads many refs with one UID FETCH (bodies included): one round trip per page. */
  async readMany(refs: readonly string[]): Promise<ReadResult[]> {
    if (refs.length === 0) return [];
    const client = await this.selected();
    const validity = String(client.mailbox ? client.mailbox.uidValidity : '');
    const wanted = refs.map((ref) => parseRef(ref));
    const current = wanted.filter((w) => w.validity === validity).map((w) => w.uid);
    const raws = new Map<number, Buffer>();
    if (current.length > 0) {
      const messages = await this.guard(() =>
        client.fetchAll(current.join(','), { uid: true, source: true }, { uid: true }),
      );
      for (const m of messages) if (m.source) raws.set(m.uid, m.source);
    }
    const results: ReadResult[] = [];
    for (const { ref, validity: v, uid } of wanted) {
      const raw = v === validity ? raws.get(uid) : undefined;
      if (!raw) {
        results.push({ ok: false, ref, reason: 'no longer in the mailbox', gone: true });
        continue;
      }
      const parsed = await parseMail(raw, ref, `<imap-${v}-${uid}@${this.config.host}>`);
      if (!parsed.ok) {
        results.push({ ok: false, ref, reason: parsed.reason });
        continue;
      }
      this.mails.set(ref, parsed.item);
      results.push({ ok: true, item: toSourceItem(parsed.item) });
    }
    return results;
  }

  async perform(action: string, item: SourceItem, context: ActionContext): Promise<string> {
    if (action === 'file_ticket') {
      return fileTicketFor(item, context);
    }
    if (action !== 'archive' && action !== 'delete' && action !== 'draft_reply')
      throw new InvalidInputError(`the imap source cannot ${action}`);
    const target = await this.folderFor(action); // before anything is touched
    const client = await this.selected();
    const uid = await this.findAgain(item);
    if (action === 'draft_reply') {
      const mail = this.mails.get(item.ref) ?? (await this.reread(client, uid, item));
      const body = context.note ? context.note : 'Thanks for your message. I will get back to you shortly.';
      const from = this.config.user.includes('@') ? this.config.user : undefined;
      const { text } = replyMessage(mail, body, from);
      await this.guard(() => client.append(target, text, ['\\Draft', '\\Seen']));
      return `draft saved to ${target}`;
    }
    const moved = await this.guard(() => client.messageMove(String(uid), target, { uid: true }));
    // A MOVE of a UID expunged meanwhile is OK with nothing moved: the UID map tells.
    if (!moved || (moved.uidMap && !moved.uidMap.has(uid)))
      throw new GoneError(
        `gone: ${item.id} left ${this.config.mailbox} before it could be moved; nothing done`,
      );
    return action === 'archive' ? `archived to ${target}` : `moved to trash: ${target}`;
  }

  /** The message at `uid`, parsed (an item read in an earlier step, say before a pause). */
  private async reread(client: ImapFlow, uid: number, item: SourceItem): Promise<MailItem> {
    const found = await this.guard(() => client.fetchOne(String(uid), { source: true }, { uid: true }));
    const parsed = found && found.source ? await parseMail(found.source, item.ref) : null;
    if (!parsed?.ok) throw new GoneError(`gone: ${item.id} could not be read again; nothing done`);
    return parsed.item;
  }

  /** Logs out (or drops the socket when that fails); the next use connects again. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.opening = null;
    if (!client) return;
    await client.logout().catch(() => client.close());
  }

  /** The UID of the item's message now: by UID while UIDVALIDITY holds, else by Message-ID. */
  private async findAgain(item: SourceItem): Promise<number> {
    const client = await this.selected();
    const { validity, uid } = parseRef(item.ref);
    const { id } = splitItemId(item.id);
    const gone = () =>
      new GoneError(
        `gone: ${id} is no longer in ${this.config.mailbox} (moved or deleted meanwhile); nothing done`,
      );
    await this.guard(() => client.noop()); // hear of other sessions' expunges first
    const now = String(client.mailbox ? client.mailbox.uidValidity : '');
    if (validity === now) {
      const found = await this.guard(() => client.search({ uid: String(uid) }, { uid: true }));
      if (!found || !found.includes(uid)) throw gone();
      return uid;
    }
    if (id.startsWith('<imap-')) throw gone();
    const found = await this.guard(() => client.search({ header: { 'message-id': id } }, { uid: true }));
    if (!found || found.length === 0) throw gone();
    return found[0]!;
  }

  /** The folder an action moves to: the configured one, else the one with its special-use flag. */
  private async folderFor(action: keyof typeof SPECIAL): Promise<string> {
    const { flag, setting } = SPECIAL[action];
    const configured = this.config[setting];
    if (configured) return configured;
    if (!this.folders) {
      const client = await this.connection();
      const list = await this.guard(() => client.list());
      this.folders = new Map(list.flatMap((box) => (box.specialUse ? [[box.specialUse, box.path]] : [])));
    }
    const path = this.folders.get(flag);
    if (!path) throw new ImapError(`the mailbox has no ${flag} folder: set source.${setting}`);
    return path;
  }

  /** The run step's connection, logged in (no mailbox selected yet). */
  private async connection(): Promise<ImapFlow> {
    if (this.client?.usable) return this.client;
    this.client = null;
    this.opening ??= connectImap(this.config, this.credentials, this.options)
      .then((client) => (this.client = client))
      .finally(() => {
        this.opening = null;
      });
    return this.opening;
  }

  /** The connection with the workflow's mailbox selected. */
  private async selected(): Promise<ImapFlow> {
    const client = await this.connection();
    if (client.mailbox && client.mailbox.path === this.config.mailbox) return client;
    try {
      await client.mailboxOpen(this.config.mailbox);
    } catch (error) {
      throw this.noMailbox(error);
    }
    return client;
  }

  private noMailbox(error: unknown): ImapError {
    const e = error as { serverResponseCode?: string; responseText?: string; mailboxMissing?: boolean };
    if (e.mailboxMissing || e.serverResponseCode === 'NONEXISTENT' || /exist/i.test(e.responseText ?? ''))
      return new ImapError(`the IMAP server has no mailbox "${this.config.mailbox}": check source.mailbox`, {
        cause: error,
      });
    return error instanceof ImapError ? error : new ImapError(`IMAP: ${e.responseText ?? 'command failed'}`);
  }

  /** Runs one command; a dropped connection becomes one plain line. */
  private async guard<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      if (error instanceof HandoffError) throw error;
      const e = error as { code?: string; responseText?: string; message?: string };
      const where = `${this.config.host}:${this.config.port}`;
      if (e.code === 'NoConnection' || /closed|ECONNRESET|EPIPE|timeout/i.test(`${e.code} ${e.message}`))
        throw new ImapUnavailableError(`the connection to IMAP ${where} was lost`, { cause: error });
      throw new ImapError(`IMAP ${where}: ${e.responseText ?? e.message ?? 'command failed'}`, {
        cause: error,
      });
    }
  }
}

function parseRef(ref: string): { ref: string; validity: string; uid: number } {
  const m = /^(\d+):(\d+)$/.exec(ref);
  if (!m) throw new InvalidInputError(`${ref}: not an IMAP ref (<uidvalidity>:<uid>)`);
  return { ref, validity: m[1]!, uid: Number(m[2]) };
}
