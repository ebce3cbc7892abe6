/**
 * The engine bench's report: the median run of each variant with its spread, side by side
 * with the bare Strands floor, the resume of one interrupt, and growth from 10 to 1,000 items.
 */
import { medianOf, round } from './instruments.ts';
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
    const median = medianOf(group, (r) => r.platform_ms_per_item)!;
    const resumes = group.flatMap((r) => (r.resume ? [r.resume] : []));
    const paired = medianOf(
      group.flatMap((r) => (r.paired_x_floor !== undefined ? [r.paired_x_floor] : [])),
      (x) => x,
    );
    out.push({
      ...median,
      // Over the floor paired in the same processes: the median of the children's ratios.
      ...(paired !== undefined ? { paired_x_floor: paired } : {}),
      // The resume's own median run: its time varies apart from the run's.
      resume: medianOf(resumes, (x) => x.wall_s) ?? null,
      spread: {
        runs: group.length,
        platform_ms_per_item: range(group.map((r) => r.platform_ms_per_item)),
        wall_ms: range(group.map((r) => r.wall_ms)),
        ...(resumes.length > 0 ? { resume_s: range(resumes.map((x) => x.wall_s)) } : {}),
      },
    });
  }
  for (const r of out) {
    const x = overFloor(r, out);
    r.x_floor = x === null ? null : round(x, 1);
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

/**
 * One variant's ms per item at each size and the largest over the smallest; and the same of
 * its ratio to the floor (the bare agent loop at the same size, whose own work per item is not
 * flat: a 10-item run has 0.5 model turns and 1.4 tool calls per item, a 1,000-item run 0.2 and 1.1).
 */
export interface Growth {
  variant: string;
  ms_per_item: Record<string, number>;
  max_over_min: number;
  /** Platform ms/item within FLAT_TARGET at every size. */
  flat: boolean;
  /** Platform ms/item over the floor's at each size; null when the floor did not run at every size. */
  x_floor: Record<string, number> | null;
  x_floor_max_over_min: number | null;
  /** The ratio to the floor within FLAT_TARGET at every size: the platform grows as the agent loop does. */
  flat_vs_floor: boolean | null;
}

/**
 * A row's platform ms/item over the floor's at the same N: paired in the same processes when
 * the children ran the floor after each timed run (warm), else over the floor's own median row.
 */
function overFloor(r: SizeResult, rows: readonly SizeResult[]): number | null {
  if (r.source === 'floor') return 1;
  if (r.paired_x_floor !== undefined) return r.paired_x_floor;
  const floor = rows.find((f) => f.source === 'floor' && f.n === r.n)?.platform_ms_per_item ?? 0;
  return floor > 0 ? r.platform_ms_per_item / floor : null;
}

const maxOverMin = (values: number[]) =>
  Math.min(...values) > 0 ? Math.max(...values) / Math.min(...values) : Infinity;

/** Flat growth per variant with at least two sizes: platform ms/item, and over the floor, max/min against FLAT_TARGET. */
export function growth(rows: SizeResult[]): Growth[] {
  const byVariant = new Map<string, SizeResult[]>();
  for (const r of rows) byVariant.set(variantName(r), [...(byVariant.get(variantName(r)) ?? []), r]);
  const out: Growth[] = [];
  for (const [variant, series] of byVariant) {
    if (series.length < 2) continue;
    const ratio = maxOverMin(series.map((r) => r.platform_ms_per_item));
    const xs = series.map((r) => [String(r.n), overFloor(r, rows)] as const);
    const overFloorAt = xs.every(([, x]) => x !== null) ? (xs as (readonly [string, number])[]) : null;
    const floorRatio = overFloorAt ? maxOverMin(overFloorAt.map(([, x]) => x)) : null;
    out.push({
      variant,
      ms_per_item: Object.fromEntries(series.map((r) => [String(r.n), r.platform_ms_per_item])),
      max_over_min: round(ratio, 2),
      flat: ratio <= FLAT_TARGET,
      x_floor: overFloorAt ? Object.fromEntries(overFloorAt.map(([n, x]) => [n, round(x, 2)])) : null,
      x_floor_max_over_min: floorRatio === null ? null : round(floorRatio, 2),
      flat_vs_floor: floorRatio === null ? null : floorRatio <= FLAT_TARGET,
    });
  }
  return out;
}

/** The flat-growth table over the sizes that ran: ms/item, then × floor, each with max / min. */
export function growthTable(rows: Growth[], sizes: number[]): string {
  const yes = (ok: boolean | null) => (ok === null ? '—' : ok ? 'yes' : 'no');
  const head = [
    'variant',
    ...sizes.map((n) => `ms/item at ${n}`),
    'max / min',
    `within ${FLAT_TARGET}×`,
    ...sizes.map((n) => `× floor at ${n}`),
    'max / min',
    `within ${FLAT_TARGET}×`,
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const g of rows)
    lines.push(
      `| ${[
        g.variant,
        ...sizes.map((n) => g.ms_per_item[String(n)]?.toFixed(2) ?? '—'),
        `${g.max_over_min}×`,
        yes(g.flat),
        ...sizes.map((n) => g.x_floor?.[String(n)]?.toFixed(2) ?? '—'),
        g.x_floor_max_over_min === null ? '—' : `${g.x_floor_max_over_min}×`,
        yes(g.flat_vs_floor),
      ].join(' | ')} |`,
    );
  return lines.join('\n');
}
