/**
 * A source whose adapter loads on first use: the mail parser, the IMAP client and their
 * character-set tables stay out of a process (a Lambda cold start, a CLI command) that
 * never reads mail. Every call waits for the adapter and is passed on unchanged.
 */
import type { ActRequest, ActResult, ActionContext, ItemSource, ReadResult, SourceItem } from './source.ts';
import { performAll } from './source.ts';

export class LazySource implements ItemSource {
  readonly actBatch?: number;
  readonly actsByRef?: ReadonlySet<string>;
  private loading: Promise<ItemSource> | null = null;

  /** `actBatch` and `actsByRef` are the adapter's own, known before it loads (the engine reads them synchronously). */
  constructor(
    private readonly load: () => Promise<ItemSource>,
    actBatch?: number,
    actsByRef?: ReadonlySet<string>,
  ) {
    if (actBatch !== undefined) this.actBatch = actBatch;
    if (actsByRef !== undefined) this.actsByRef = actsByRef;
  }

  private source(): Promise<ItemSource> {
    this.loading ??= this.load();
    return this.loading;
  }

  async listRefs(): Promise<string[]> {
    return (await this.source()).listRefs();
  }

  async read(ref: string): Promise<ReadResult> {
    return (await this.source()).read(ref);
  }

  async readMany(refs: readonly string[]): Promise<ReadResult[]> {
    const source = await this.source();
    if (source.readMany) return source.readMany(refs);
    return Promise.all(refs.map((ref) => source.read(ref))); // a page's files read side by side
  }

  async perform(action: string, item: SourceItem, context: ActionContext): Promise<string> {
    return (await this.source()).perform(action, item, context);
  }

  async performMany(requests: readonly ActRequest[]): Promise<ActResult[]> {
    return performAll(await this.source(), requests);
  }

  /** An adapter that cannot tell cheaply says "maybe": the engine reads the items to find out. */
  async mayHaveNew(): Promise<boolean> {
    const source = await this.source();
    return source.mayHaveNew ? source.mayHaveNew() : true;
  }

  async markSeen(): Promise<void> {
    await (await this.source()).markSeen?.();
  }

  /** Closes the adapter if it was ever loaded; one never used holds nothing. */
  async close(): Promise<void> {
    const source = await this.loading?.catch(() => null); // one that failed to load holds nothing either
    await source?.close?.();
  }
}
