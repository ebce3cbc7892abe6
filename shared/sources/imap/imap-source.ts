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
import { draftArtifact } from '../../artifacts/artifacts.ts';
import { parseMail, type MailItem } from '../maildir/maildir.ts';
import { replyBody, toSourceItem } from '../maildir/maildir-source.ts';
import type { ActRequest, ActResult, ActionContext, ItemSource, ReadResult, SourceItem } from '../source.ts';
import { splitItemId } from '../source.ts';
import { ImapError, ImapUnavailableError, connectImap, type ImapOptions } from './connection.ts';
import { appendAll } from './multiappend.ts';
import { IMAP_BATCH } from './batch.ts';
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

export { IMAP_BATCH };

type MailAction = keyof typeof SPECIAL;

/** An IMAP mailbox; connects on first use, one connection until `close`. */
export class ImapSource implements ItemSource {
  readonly actBatch = IMAP_BATCH;
  private client: ImapFlow | null = null;
  /** Refs in listed order, so a read can fetch the ones after it in the same round trip. */
  private listed: string[] = [];
  /** Raw messages fetched ahead, by ref (one window at a time). */
  private ahead = new Map<string, Buffer | null>();
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
    this.listed = (uids || []).sort((a, b) => a - b).map((uid) => `${validity}:${uid}`);
    this.ahead.clear();
    return [...this.listed];
  }

  async read(ref: string): Promise<ReadResult> {
    return (await this.readMany([ref]))[0]!;
  }

  /**
   * Reads many refs; a ref not fetched ahead yet costs one UID FETCH (bodies included) of it
   * and the refs listed after it, up to IMAP_BATCH: one round trip per batch of pages.
   */
  async readMany(refs: readonly string[]): Promise<ReadResult[]> {
    if (refs.length === 0) return [];
    const missing = refs.filter((ref) => !this.ahead.has(ref));
    if (missing.length > 0) await this.fetchAhead(missing);
    const results: ReadResult[] = [];
    for (const ref of refs) {
      const raw = this.ahead.get(ref);
      if (!raw) {
        results.push({ ok: false, ref, reason: 'no longer in the mailbox', gone: true });
        continue;
      }
      const { validity, uid } = parseRef(ref);
      const parsed = await parseMail(raw, ref, `<imap-${validity}-${uid}@${this.config.host}>`);
      if (!parsed.ok) {
        results.push({ ok: false, ref, reason: parsed.reason });
        continue;
      }
      this.mails.set(ref, parsed.item);
      results.push({ ok: true, item: toSourceItem(parsed.item) });
    }
    return results;
  }

  /** Fetches `refs` and the listed refs after the first of them, up to IMAP_BATCH, as the new window. */
  private async fetchAhead(refs: readonly string[]): Promise<void> {
    const client = await this.selected();
    const validity = String(client.mailbox ? client.mailbox.uidValidity : '');
    const start = this.listed.indexOf(refs[0]!);
    const following = start < 0 ? [] : this.listed.slice(start, start + IMAP_BATCH);
    const window = [...new Set([...refs, ...following])].slice(0, Math.max(refs.length, IMAP_BATCH));
    const current = window.map((ref) => parseRef(ref)).filter((w) => w.validity === validity);
    const raws = new Map<number, Buffer>();
    if (current.length > 0) {
      const messages = await this.guard(() =>
        client.fetchAll(current.map((w) => w.uid).join(','), { uid: true, source: true }, { uid: true }),
      );
      for (const m of messages) if (m.source) raws.set(m.uid, m.source);
    }
    this.ahead = new Map(
      window.map((ref) => {
        const { validity: v, uid } = parseRef(ref);
        return [ref, v === validity ? (raws.get(uid) ?? null) : null];
      }),
    );
  }

  async perform(action: string, item: SourceItem, context: ActionContext): Promise<string> {
    const [result] = await this.performMany([{ action, item, context }]);
    if (!result!.ok) throw result!.error;
    return result!.detail;
  }

  /**
   * Carries out a batch: tickets one by one (no IMAP), then the mail actions in a few round
   * trips: one NOOP and one UID FETCH to find the messages again (by UID, or by Message-ID when
   * UIDVALIDITY changed), one UID MOVE per target folder, one APPEND of every draft. A
   * message moved or deleted meanwhile is gone, and nothing else is touched for it.
   */
  async performMany(requests: readonly ActRequest[]): Promise<ActResult[]> {
    const results: (ActResult | undefined)[] = new Array(requests.length);
    const mail: number[] = [];
    for (const [i, { action, item, context }] of requests.entries()) {
      if (action === 'file_ticket') results[i] = await settled(() => fileTicketFor(item, context));
      else if (action in SPECIAL) mail.push(i);
      else results[i] = { ok: false, error: new InvalidInputError(`the imap source cannot ${action}`) };
    }
    try {
      await this.performMail(requests, mail, results);
    } catch (error) {
      for (const i of mail) results[i] ??= { ok: false, error };
    }
    return results.map(
      (r) => r ?? { ok: false, error: new ImapError('IMAP: the action was not carried out') },
    );
  }

  private async performMail(
    requests: readonly ActRequest[],
    mail: readonly number[],
    results: (ActResult | undefined)[],
  ): Promise<void> {
    if (mail.length === 0) return;
    const targets = new Map<MailAction, string>();
    for (const i of mail) {
      const action = requests[i]!.action as MailAction;
      if (targets.has(action)) continue;
      try {
        targets.set(action, await this.folderFor(action)); // before anything is touched
      } catch (error) {
        if (!(error instanceof ImapError)) throw error;
        for (const j of mail) if (requests[j]!.action === action) results[j] = { ok: false, error };
      }
    }
    const todo = mail.filter((i) => !results[i]);
    const client = await this.selected();
    const found = await this.findAgain(
      client,
      todo.map((i) => requests[i]!.item),
      todo.some((i) => requests[i]!.action === 'draft_reply'),
    );
    const live: number[] = [];
    for (const [k, i] of todo.entries()) {
      const at = found[k]!;
      if (at.uid === null) results[i] = { ok: false, error: this.gone(requests[i]!.item) };
      else live.push(i);
    }
    const uidOf = new Map(live.map((i) => [i, found[todo.indexOf(i)]!.uid!]));
    const rawOf = new Map(live.map((i) => [i, found[todo.indexOf(i)]!.raw]));

    for (const action of ['archive', 'delete'] as const) {
      const group = live.filter((i) => requests[i]!.action === action);
      if (group.length === 0) continue;
      const target = targets.get(action)!;
      const uids = group.map((i) => uidOf.get(i)!);
      const moved = await this.guard(() => client.messageMove(uids.join(','), target, { uid: true }));
      // imapflow answers a failed MOVE with false, also when the connection dropped under it:
      // then nothing is known done, and the messages are left for the next run, not called gone.
      if (!moved && !client.usable)
        throw new ImapUnavailableError(
          `the connection to IMAP ${this.config.host}:${this.config.port} was lost`,
        );
      for (const [k, i] of group.entries()) {
        // With UIDPLUS a MOVE names each message it moved; without, it moved what it found.
        const gone =
          !moved || (moved.uidMap ? !moved.uidMap.has(uids[k]!) : client.capabilities.has('UIDPLUS'));
        results[i] = gone
          ? { ok: false, error: this.gone(requests[i]!.item) }
          : {
              ok: true,
              detail: action === 'archive' ? `archived to ${target}` : `moved to trash: ${target}`,
            };
      }
    }

    const drafts = live.filter((i) => requests[i]!.action === 'draft_reply');
    if (drafts.length === 0) return;
    const target = targets.get('draft_reply')!;
    const from = this.config.user.includes('@') ? this.config.user : undefined;
    const texts: string[] = [];
    for (const i of drafts) {
      const { item, context } = requests[i]!;
      const parsed = this.mails.get(item.ref) ?? (await this.parseAgain(rawOf.get(i) ?? null, item));
      texts.push(replyMessage(parsed, replyBody(item, context), from).text);
    }
    await this.guard(() => appendAll(client, target, texts, ['\\Draft', '\\Seen']));
    for (const [k, i] of drafts.entries()) {
      const { item, context } = requests[i]!;
      context.produced?.(draftArtifact(item, texts[k]!, `imap://${this.config.host}/${target}`));
      results[i] = { ok: true, detail: `draft saved to ${target}` };
    }
  }

  /**
   * Where each item's message is now, in one UID FETCH (bodies only for drafts of messages
   * not read in this process): by UID while UIDVALIDITY holds, else by Message-ID (one
   * SEARCH each, rare). `uid: null`: it is no longer in the mailbox.
   */
  private async findAgain(
    client: ImapFlow,
    items: readonly SourceItem[],
    withBodies: boolean,
  ): Promise<{ uid: number | null; raw: Buffer | null }[]> {
    await this.guard(() => client.noop()); // hear of other sessions' expunges first
    const now = String(client.mailbox ? client.mailbox.uidValidity : '');
    const uids: (number | null)[] = [];
    for (const item of items) {
      const { validity, uid } = parseRef(item.ref);
      const { id } = splitItemId(item.id);
      if (validity === now) uids.push(uid);
      else if (id.startsWith('<imap-')) uids.push(null);
      else {
        const hits = await this.guard(() => client.search({ header: { 'message-id': id } }, { uid: true }));
        uids.push(hits && hits.length > 0 ? hits[0]! : null);
      }
    }
    const wanted = uids.filter((uid): uid is number => uid !== null);
    const present = new Map<number, Buffer | null>();
    if (wanted.length > 0) {
      const needBodies = withBodies && items.some((item) => !this.mails.has(item.ref));
      const messages = await this.guard(() =>
        client.fetchAll(wanted.join(','), { uid: true, source: needBodies }, { uid: true }),
      );
      for (const m of messages) present.set(m.uid, m.source ?? null);
    }
    return uids.map((uid) =>
      uid !== null && present.has(uid) ? { uid, raw: present.get(uid) ?? null } : { uid: null, raw: null },
    );
  }

  /** The message of an item read in an earlier step (say before a pause), parsed again. */
  private async parseAgain(raw: Buffer | null, item: SourceItem): Promise<MailItem> {
    const parsed = raw ? await parseMail(raw, item.ref) : null;
    if (!parsed?.ok) throw new GoneError(`gone: ${item.id} could not be read again; nothing done`);
    return parsed.item;
  }

  private gone(item: SourceItem): GoneError {
    return new GoneError(
      `gone: ${splitItemId(item.id).id} is no longer in ${this.config.mailbox} (moved or deleted meanwhile); nothing done`,
    );
  }

  /** Logs out (or drops the socket when that fails); the next use connects again. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.opening = null;
    if (!client) return;
    await client.logout().catch(() => client.close());
  }

  /** The folder an action moves to: the configured one, else the one with its special-use flag. */
  private async folderFor(action: MailAction): Promise<string> {
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

/** Runs `work`, its result or its error as an ActResult. */
async function settled(work: () => Promise<string>): Promise<ActResult> {
  try {
    return { ok: true, detail: await work() };
  } catch (error) {
    return { ok: false, error };
  }
}
