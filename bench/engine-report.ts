/**
 * The engine bench's report: the median run of each variant with its spread, side by side
 * with the bare Strands floor, the resume of one interrupt, and growth from 10 to 1,000 items.
 */
import { round } from './instruments.ts';
import type { SizeResult } from './engine-run.ts';

/** Flat growth: ms per item at every size within this factor of each other (issue 14's target). */
export const FLAT_TARGET = 1.3;

/** A variant's name in the tables. */
export function variantName(r: Pick<SizeResult, 'source' | 'store'>): string {
  if (r.source === 'floor') return 'bare Strands floor';
  return `${r.source}, ${r.store === 'json' ? 'JSON files' : r.store === 'dynamodb' ? 'DynamoDB (dynalite)' : 'in memory'}`;
}

const ORDER = ['floor', 'maildir memory', 'maildir json', 'maildir dynamodb', 'imap json'];
const rank = (r: SizeResult) => {
  const i = ORDER.indexOf(r.source === 'floor' ? 'floor' : `${r.source} ${r.store}`);
  return i < 0 ? ORDER.length : i;
};

function range(values: number[]): [number, number] {
  return [Math.min(...values), Math.max(...values)];
}

/**
 * The run with the median platform time of each variant (source, store, N), carrying the
 * variant's spread; each row's ratio to the floor at the same N when the floor ran.
 */
export function medians(runs: SizeResult[]): SizeResult[] {
  const groups = new Map<string, SizeResult[]>();
  for (const r of runs) {
    const key = `${r.source} ${r.store} ${r.n}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const out: SizeResult[] = [];
  for (const group of groups.values()) {
    const sorted = [...group].sort((a, b) => a.platform_ms_per_item - b.platform_ms_per_item);
    const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
    const resumes = group.flatMap((r) => (r.resume ? [r.resume] : [])).sort((a, b) => a.wall_s - b.wall_s);
    out.push({
      ...median,
      // The resume's own median run: its time varies apart from the run's.
      resume: resumes[Math.floor((resumes.length - 1) / 2)] ?? null,
      spread: {
        runs: group.length,
        platform_ms_per_item: range(group.map((r) => r.platform_ms_per_item)),
        wall_ms: range(group.map((r) => r.wall_ms)),
        ...(resumes.length > 0 ? { resume_s: range(resumes.map((x) => x.wall_s)) } : {}),
      },
    });
  }
  for (const r of out) {
    const floor = out.find((f) => f.source === 'floor' && f.n === r.n);
    r.x_floor =
      floor && floor.platform_ms_per_item > 0
        ? round(r.platform_ms_per_item / floor.platform_ms_per_item, 1)
        : null;
  }
  return out.sort((a, b) => rank(a) - rank(b) || a.n - b.n);
}

const spreadText = (value: number, spread: [number, number] | undefined, digits: number) =>
  value.toFixed(digits) + (spread ? ` (${spread[0].toFixed(digits)}–${spread[1].toFixed(digits)})` : '');

/** The main table: every variant's median run, the floor first. */
export function mainTable(rows: SizeResult[]): string {
  const head = [
    'variant',
    'N',
    'status',
    'acted / deferred / declined',
    'wall s',
    'platform ms/item (min–max)',
    '× floor',
    'store ms/item',
    'other platform ms/item',
    'model ms/item',
    'store writes/item',
    'IMAP round trips/item',
    'turns / tool calls',
    'peak RSS MB',
    'est tokens/turn max / mean',
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows)
    lines.push(
      `| ${[
        variantName(r),
        r.n,
        r.status,
        r.source === 'floor'
          ? `${r.acted} submitted`
          : `${r.acted} / ${r.deferred} / ${r.declined}${r.failed ? ` (${r.failed} failed)` : ''}`,
        (r.wall_ms / 1000).toFixed(2),
        spreadText(r.platform_ms_per_item, r.spread?.platform_ms_per_item, 2),
        r.x_floor === null || r.x_floor === undefined ? '—' : `${r.x_floor}×`,
        r.store_ms_per_item.toFixed(2),
        r.engine_ms_per_item.toFixed(2),
        r.model_ms_per_item.toFixed(3),
        r.store_writes_per_item.toFixed(2),
        r.round_trips_per_item === null ? '—' : r.round_trips_per_item.toFixed(3),
        `${r.turns} / ${r.tool_calls}`,
        r.peak_rss_mb.toFixed(1),
        `${r.est_max_tokens_per_turn} / ${r.est_mean_tokens_per_turn}`,
      ].join(' | ')} |`,
    );
  return lines.join('\n');
}

/** Resume of the one interrupt, against one interrupt per unsure item. */
export function resumeTable(rows: SizeResult[]): string {
  const head = [
    'variant',
    'N',
    'answers',
    'resume s, all answers (min–max)',
    'ms/answer',
    'store writes / reads per answer',
    'last answer + resume s',
    'writes/answer in the resume',
    'learner model s',
    'status after',
    'round trips: one interrupt / one per unsure item',
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) {
    const x = r.resume;
    if (!x) continue;
    lines.push(
      `| ${[
        variantName(r),
        r.n,
        x.answers,
        spreadText(x.wall_s, r.spread?.resume_s, 2),
        x.ms_per_answer.toFixed(1),
        `${x.store_writes_per_answer.toFixed(2)} / ${x.store_reads_per_answer.toFixed(1)}`,
        x.last_answer_and_resume_s.toFixed(2),
        x.resume_store_writes_per_answer.toFixed(2),
        x.model_s.toFixed(2),
        x.status_after,
        `${x.round_trips} / ${x.round_trips_one_interrupt_per_call}`,
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

/** One variant's ms per item at each size and the largest over the smallest. */
export interface Growth {
  variant: string;
  ms_per_item: Record<string, number>;
  max_over_min: number;
  flat: boolean;
}

/** Flat growth per variant with at least two sizes: platform ms/item, max/min against FLAT_TARGET. */
export function growth(rows: SizeResult[]): Growth[] {
  const byVariant = new Map<string, SizeResult[]>();
  for (const r of rows) byVariant.set(variantName(r), [...(byVariant.get(variantName(r)) ?? []), r]);
  const out: Growth[] = [];
  for (const [variant, series] of byVariant) {
    if (series.length < 2) continue;
    const values = series.map((r) => r.platform_ms_per_item);
    const ratio = Math.min(...values) > 0 ? Math.max(...values) / Math.min(...values) : Infinity;
    out.push({
      variant,
      ms_per_item: Object.fromEntries(series.map((r) => [String(r.n), r.platform_ms_per_item])),
      max_over_min: round(ratio, 2),
      flat: ratio <= FLAT_TARGET,
    });
  }
  return out;
}

/** The flat-growth table over the sizes that ran. */
export function growthTable(rows: Growth[], sizes: number[]): string {
  const head = ['variant', ...sizes.map((n) => `ms/item at ${n}`), 'max / min', `within ${FLAT_TARGET}×`];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const g of rows)
    lines.push(
      `| ${[
        g.variant,
        ...sizes.map((n) => g.ms_per_item[String(n)]?.toFixed(2) ?? '—'),
        `${g.max_over_min}×`,
        g.flat ? 'yes' : 'no',
      ].join(' | ')} |`,
    );
  return lines.join('\n');
}
