/**
 * What the engine benchmark measures with: a timed offline model, a counting store and a
 * memory sampler. Each wraps the real part and only adds counters.
 */
import type { Message, ModelStreamEvent, StreamOptions } from '@strands-agents/sdk';
import { OfflineModel } from '../shared/models/offline/offline-model.ts';
import type { Notifier } from '../shared/notify/notifier.ts';
import type { Store } from '../shared/store/store.ts';

const SAMPLE_MS = 10;

/** The offline model, timing its own generator: only the time spent pulling its events counts. */
export class TimedOfflineModel extends OfflineModel {
  modelMs = 0;
  inputCharsTotal = 0;
  toolCalls = 0;

  override async *stream(messages: Message[], options?: StreamOptions): AsyncIterable<ModelStreamEvent> {
    const inner = super.stream(messages, options)[Symbol.asyncIterator]();
    let first = true;
    for (;;) {
      const started = performance.now();
      const next = await inner.next();
      this.modelMs += performance.now() - started;
      // The first pull runs the turn's bookkeeping: stats now describe this turn's input.
      if (first) {
        first = false;
        this.inputCharsTotal += this.stats.lastInputChars;
      }
      if (next.done) return;
      const event = next.value;
      if (event.type === 'modelContentBlockStartEvent' && event.start?.type === 'toolUseStart')
        this.toolCalls += 1;
      yield event;
    }
  }
}

/** Totals over every model a run made (the executor, a learner per answer, ...). */
export function modelTotals(models: readonly TimedOfflineModel[]) {
  const turns = models.reduce((s, m) => s + m.stats.turns, 0);
  return {
    modelMs: models.reduce((s, m) => s + m.modelMs, 0),
    turns,
    toolCalls: models.reduce((s, m) => s + m.toolCalls, 0),
    maxInputChars: models.reduce((s, m) => Math.max(s, m.stats.maxInputChars), 0),
    meanInputChars: turns > 0 ? models.reduce((s, m) => s + m.inputCharsTotal, 0) / turns : 0,
  };
}

/** Store methods that only read; every other method a store has counts as a write. */
const READS = new Set([
  'get',
  'getMany',
  'getRefs',
  'list',
  'listWithStatus',
  'listRunsOf',
  'listByIdPrefix',
  'listPage',
  'listNewest',
]);
/** The methods every Store has, counted from 0 so tables line up. */
const BASE_METHODS = ['get', 'list', 'listWithStatus', 'create', 'update', 'put', 'delete'];

/** What a counting store adds to the store it wraps. */
export interface StoreCounters {
  readonly inner: Store;
  /** Calls by method name (any method the inner store has, optional ones included). */
  calls: Record<string, number>;
  /** Records written and reads, by collection (a batch write's records each count; a call with no collection: its method name). */
  writesByCollection: Record<string, number>;
  readsByCollection: Record<string, number>;
  /** Time awaiting the store. */
  ms: number;
  readonly writes: number;
  readonly reads: number;
  reset(): void;
}

export type CountingStore = Store & StoreCounters;

/**
 * Wraps a store so every call is counted (by method and collection) and timed, then
 * delegated. Whatever methods the inner store has, optional ones included (listRunsOf,
 * batch writes), the wrapper has too, so the engine takes the same paths as on the bare store.
 */
export function countingStore(inner: Store): CountingStore {
  const counters: StoreCounters = {
    inner,
    calls: {},
    writesByCollection: {},
    readsByCollection: {},
    ms: 0,
    get writes() {
      return Object.entries(this.calls).reduce((sum, [m, n]) => sum + (READS.has(m) ? 0 : n), 0);
    },
    get reads() {
      return Object.entries(this.calls).reduce((sum, [m, n]) => sum + (READS.has(m) ? n : 0), 0);
    },
    reset() {
      this.calls = Object.fromEntries(BASE_METHODS.map((m) => [m, 0]));
      this.writesByCollection = {};
      this.readsByCollection = {};
      this.ms = 0;
    },
  };
  counters.reset();
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(inner, {
    get(target, prop) {
      if (prop in counters) {
        const own: unknown = Reflect.get(counters, prop, counters);
        return typeof own === 'function' ? own.bind(counters) : own;
      }
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (!wrapped.has(prop)) {
        const method = String(prop);
        wrapped.set(prop, async (...args: unknown[]) => {
          counters.calls[method] = (counters.calls[method] ?? 0) + 1;
          const tally = READS.has(method) ? counters.readsByCollection : counters.writesByCollection;
          // A batch write is one durable write; by collection, each of its records counts.
          const batch = Array.isArray(args[0]) ? (args[0] as { collection?: unknown }[]) : null;
          const where = batch
            ? batch.map((w) => String(w.collection ?? method))
            : [typeof args[0] === 'string' ? args[0] : method];
          for (const key of where) tally[key] = (tally[key] ?? 0) + 1;
          const started = performance.now();
          try {
            return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          } finally {
            counters.ms += performance.now() - started;
          }
        });
      }
      return wrapped.get(prop);
    },
  }) as CountingStore;
}

/** Samples process.memoryUsage() every SAMPLE_MS and keeps the peaks. */
export function startMemorySampler() {
  let peakRss = 0;
  let peakHeap = 0;
  let samples = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
    samples += 1;
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { peakRss, peakHeap, samples };
    },
  };
}

/** A notifier that tells no one. */
export const silentNotifier: Notifier = { notify: async () => {} };

/** Megabytes to one decimal. */
export const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
/** The median element by `key` (the lower middle one of an even count); undefined when there is none. */
export function medianOf<T>(values: readonly T[], key: (v: T) => number): T | undefined {
  return [...values].sort((a, b) => key(a) - key(b))[Math.floor((values.length - 1) / 2)];
}

/** Rounds to `digits` decimals. */
export const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Ends the bench over a bad command line: one line on standard error (`<bench>: ...`), exit 2. */
export function refuseFlag(bench: string, message: string): never {
  console.error(`${bench}: ${message}`);
  process.exit(2);
}

/** The bench's flags as `parse` reads them (parseArgs); an unknown or malformed one is refused (`refuseFlag`). */
export function benchFlags<T>(bench: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    refuseFlag(bench, error instanceof Error ? error.message : String(error));
  }
}

/** A flag's whole number of at least 1; anything else is refused (`refuseFlag`). */
export function wholeNumberFlag(bench: string, flag: string, value: string): number {
  const n = Number(value);
  if (Number.isInteger(n) && n >= 1) return n;
  refuseFlag(bench, `--${flag} wants a whole number of at least 1, got ${JSON.stringify(value)}`);
}
