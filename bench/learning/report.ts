/**
 * The learning benchmark's outputs: the per-day table (console and markdown), the summary
 * with THE BAR, and a hand-written SVG chart (no dependencies).
 */

export interface DayRow {
  day: number;
  /** Messages delivered into the Maildir that day. */
  delivered: number;
  /** Distinct items the day's run handled (from the audit log). */
  items: number;
  /** Set aside for the person (decided_by human, or expired). */
  asked: number;
  asked_pct: number;
  /** Decided by a rule (decided_by memory). */
  memory: number;
  memory_pct: number;
  /** Decided by the model alone, above the threshold. */
  model: number;
  /** Memory decided, and its action differs from the person's hidden policy. */
  wrong_by_memory: number;
  /** The model acted confidently, and its action differs from the hidden policy (not part of the bar). */
  model_wrong: number;
  /** model_wrong by kind of sender (colleague, internal_bot, lookalike, ...). */
  model_wrong_by_segment: Record<string, number>;
  /** Live rules the day's run could use (at its start). */
  rules_live: number;
  /** Rules written while the person answered that day. */
  rules_learned: number;
  /** Questions a domain proposal the person had accepted would have answered (its action = the policy's). */
  saved_by_proposals: number;
  /** Questions an accepted proposal would have answered with an action the policy does not give. */
  wrong_by_proposals: number;
  /** Answers given that day, and how many carried a note. */
  answers: number;
  notes: number;
  run_status: string;
  wall_ms: number;
  errors: string[];
}

export interface Summary {
  days: number;
  day1_asked_pct: number;
  week2_days: number[];
  week2_mean_asked_pct: number | null;
  /** Relative fall from day 1 to the week-2 mean, in percent of day 1. */
  fall_pct: number | null;
  total_wrong_by_memory: number;
  total_model_wrong: number;
  model_wrong_by_segment: Record<string, number>;
  total_items: number;
  total_asked: number;
  total_memory: number;
  learned_rules_at_end: number;
  /** Domain proposals made in the month, and how many the simulated person accepted (policy-true). */
  proposals: { made: number; accepted: number };
  /** Second-week questions accepted proposals would have saved, and answered wrongly. */
  week2_saved_by_proposals: number;
  week2_asked: number;
  wrong_by_proposals: number;
  /** Any learned rule at all: false means the learner did not write rules during this run. */
  learning_observed: boolean;
  bar: { text: string; required_fall_pct: number; fall_ok: boolean; zero_wrong_ok: boolean; holds: boolean };
}

export const BAR_TEXT =
  'by the second week the share asked has fallen by at least 60% from day one, with zero wrong actions by memory';
const REQUIRED_FALL = 60;
const WEEK2 = [8, 9, 10, 11, 12, 13, 14];

export const pct = (part: number, whole: number): number =>
  whole === 0 ? 0 : Math.round((part / whole) * 1000) / 10;
const round1 = (value: number): number => Math.round(value * 10) / 10;

export function summarise(
  rows: readonly DayRow[],
  learnedRulesAtEnd: number,
  proposals: Summary['proposals'] = { made: 0, accepted: 0 },
): Summary {
  const day1 = rows.find((r) => r.day === 1);
  const week2 = rows.filter((r) => WEEK2.includes(r.day));
  const week2Mean =
    week2.length > 0 ? round1(week2.reduce((s, r) => s + r.asked_pct, 0) / week2.length) : null;
  const day1Asked = day1?.asked_pct ?? 0;
  const fall =
    week2Mean === null || day1Asked === 0 ? null : round1(((day1Asked - week2Mean) / day1Asked) * 100);
  const totalWrong = rows.reduce((s, r) => s + r.wrong_by_memory, 0);
  const fallOk = fall !== null && fall >= REQUIRED_FALL;
  const zeroWrong = totalWrong === 0;
  return {
    days: rows.length,
    day1_asked_pct: day1Asked,
    week2_days: week2.map((r) => r.day),
    week2_mean_asked_pct: week2Mean,
    fall_pct: fall,
    total_wrong_by_memory: totalWrong,
    total_model_wrong: rows.reduce((s, r) => s + r.model_wrong, 0),
    model_wrong_by_segment: rows.reduce<Record<string, number>>((acc, r) => {
      for (const [segment, n] of Object.entries(r.model_wrong_by_segment))
        acc[segment] = (acc[segment] ?? 0) + n;
      return acc;
    }, {}),
    total_items: rows.reduce((s, r) => s + r.items, 0),
    total_asked: rows.reduce((s, r) => s + r.asked, 0),
    total_memory: rows.reduce((s, r) => s + r.memory, 0),
    learned_rules_at_end: learnedRulesAtEnd,
    proposals,
    week2_saved_by_proposals: week2.reduce((s, r) => s + r.saved_by_proposals, 0),
    week2_asked: week2.reduce((s, r) => s + r.asked, 0),
    wrong_by_proposals: rows.reduce((s, r) => s + r.wrong_by_proposals, 0),
    learning_observed: learnedRulesAtEnd > 0,
    bar: {
      text: BAR_TEXT,
      required_fall_pct: REQUIRED_FALL,
      fall_ok: fallOk,
      zero_wrong_ok: zeroWrong,
      holds: fallOk && zeroWrong,
    },
  };
}

const HEAD = [
  'day',
  'items',
  'asked',
  'asked %',
  'memory',
  'memory %',
  'model',
  'wrong by memory',
  'model wrong',
  'rules live',
  'learned',
] as const;

/** The per-day table as markdown (also what the console prints). */
export function markdownTable(rows: readonly DayRow[]): string {
  const lines = [`| ${HEAD.join(' | ')} |`, `|${HEAD.map(() => '---:').join('|')}|`];
  for (const r of rows)
    lines.push(
      `| ${[
        r.day,
        r.items === r.delivered ? r.items : `${r.items} (of ${r.delivered})`,
        r.asked,
        r.asked_pct.toFixed(1),
        r.memory,
        r.memory_pct.toFixed(1),
        r.model,
        r.wrong_by_memory,
        r.model_wrong,
        r.rules_live,
        r.rules_learned,
      ].join(' | ')} |`,
    );
  return lines.join('\n');
}

export function summaryLines(s: Summary): string[] {
  const fall = s.fall_pct === null ? 'n/a' : `${s.fall_pct.toFixed(1)}%`;
  const week2 = s.week2_mean_asked_pct === null ? 'n/a' : `${s.week2_mean_asked_pct.toFixed(1)}%`;
  return [
    `Day-1 share asked: ${s.day1_asked_pct.toFixed(1)}%`,
    `Mean share asked, days ${s.week2_days[0] ?? '?'}-${s.week2_days.at(-1) ?? '?'} (second week): ${week2}`,
    `Fall from day one: ${fall} (needed: at least ${s.bar.required_fall_pct}%)`,
    `Wrong actions by memory (whole month): ${s.total_wrong_by_memory}`,
    `Domain proposals: ${s.proposals.made} made, ${s.proposals.accepted} accepted (true to the person's policy), ${s.proposals.made - s.proposals.accepted} dismissed; accepted ones would have saved ${s.week2_saved_by_proposals} of ${s.week2_asked} second-week questions (${s.wrong_by_proposals} answered wrongly, whole month)`,
    `Model-confident actions that differ from the person's policy (not part of the bar): ${s.total_model_wrong}${
      s.total_model_wrong > 0
        ? ` (${Object.entries(s.model_wrong_by_segment)
            .sort((a, b) => b[1] - a[1])
            .map(([segment, n]) => `${segment} ${n}`)
            .join(', ')})`
        : ''
    }`,
    `Month: ${s.total_items} items, ${s.total_asked} asked, ${s.total_memory} handled by memory; learned rules at the end: ${s.learned_rules_at_end}${
      s.learning_observed ? '' : ' (NO rules were learned: the learner did not write any during this run)'
    }`,
    `THE BAR (${s.bar.text}): ${s.bar.holds ? 'PASS' : 'FAIL'}${
      s.bar.holds
        ? ''
        : ` (${[
            !s.bar.fall_ok ? 'share asked did not fall enough' : '',
            !s.bar.zero_wrong_ok ? 'memory acted wrongly' : '',
          ]
            .filter(Boolean)
            .join('; ')})`
    }`,
  ];
}

// ---------------------------------------------------------------------------
// SVG
// ---------------------------------------------------------------------------

const esc = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const W = 720;
const H = 360;
const PLOT = { left: 64, right: 652, top: 58, bottom: 244 };
const ASKED_COLOR = '#d9480f';
const MEMORY_COLOR = '#1c7ed6';
const WRONG_COLOR = '#c92a2a';

/** A line chart of share asked and share handled by memory per day, with a wrong-by-memory row. */
export function svgChart(rows: readonly DayRow[], summary: Summary, subtitle: string): string {
  const days = Math.max(rows.length, 2);
  const x = (day: number) => PLOT.left + ((day - 1) / (days - 1)) * (PLOT.right - PLOT.left);
  const y = (value: number) => PLOT.bottom - (value / 100) * (PLOT.bottom - PLOT.top);
  const f = (n: number) => n.toFixed(1);
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" role="img" aria-labelledby="title desc">`,
    `<title id="title">Handoff learning benchmark: share asked and share handled by memory per day</title>`,
    `<desc id="desc">${esc(summaryLines(summary).join(' '))}</desc>`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${W / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold" fill="#212529">Handoff learns: share of each day's mail asked vs. handled by memory</text>`,
    `<text x="${W / 2}" y="40" text-anchor="middle" font-size="11" fill="#495057">${esc(subtitle)}</text>`,
  );
  // Week-2 band.
  if (days >= 14) {
    out.push(
      `<rect x="${f(x(7.5))}" y="${PLOT.top}" width="${f(x(14.5) - x(7.5))}" height="${PLOT.bottom - PLOT.top}" fill="#f1f3f5"/>`,
      `<text x="${f((x(7.5) + x(14.5)) / 2)}" y="${PLOT.top + 12}" text-anchor="middle" font-size="10" fill="#868e96">second week</text>`,
    );
  }
  // Grid and y axis.
  for (const v of [0, 25, 50, 75, 100]) {
    out.push(
      `<line x1="${PLOT.left}" y1="${f(y(v))}" x2="${PLOT.right}" y2="${f(y(v))}" stroke="${v === 0 ? '#495057' : '#dee2e6'}" stroke-width="1"/>`,
      `<text x="${PLOT.left - 6}" y="${f(y(v) + 3.5)}" text-anchor="end" font-size="10" fill="#495057">${v}%</text>`,
    );
  }
  out.push(
    `<line x1="${PLOT.left}" y1="${PLOT.top}" x2="${PLOT.left}" y2="${PLOT.bottom}" stroke="#495057" stroke-width="1"/>`,
    `<text transform="translate(18 ${(PLOT.top + PLOT.bottom) / 2}) rotate(-90)" text-anchor="middle" font-size="11" fill="#495057">share of the day's items</text>`,
  );
  // X axis ticks.
  for (let d = 1; d <= rows.length; d++) {
    const labelled = d === 1 || d % 5 === 0 || d === rows.length;
    out.push(
      `<line x1="${f(x(d))}" y1="${PLOT.bottom}" x2="${f(x(d))}" y2="${PLOT.bottom + (labelled ? 5 : 3)}" stroke="#495057" stroke-width="1"/>`,
    );
    if (labelled)
      out.push(
        `<text x="${f(x(d))}" y="${PLOT.bottom + 16}" text-anchor="middle" font-size="10" fill="#495057">${d}</text>`,
      );
  }
  out.push(
    `<text x="${(PLOT.left + PLOT.right) / 2}" y="${PLOT.bottom + 30}" text-anchor="middle" font-size="11" fill="#495057">day of the simulated month</text>`,
  );
  // Target: 40% of day one's share asked.
  const target = summary.day1_asked_pct * (1 - summary.bar.required_fall_pct / 100);
  if (summary.day1_asked_pct > 0)
    out.push(
      `<line x1="${PLOT.left}" y1="${f(y(target))}" x2="${PLOT.right}" y2="${f(y(target))}" stroke="${ASKED_COLOR}" stroke-width="1" stroke-dasharray="5 4" opacity="0.7"/>`,
      `<text x="${PLOT.right + 6}" y="${f(y(target) - 2)}" font-size="10" fill="${ASKED_COLOR}">target</text>`,
      `<text x="${PLOT.right + 6}" y="${f(y(target) + 10)}" font-size="10" fill="${ASKED_COLOR}">${target.toFixed(1)}%</text>`,
    );
  // The two lines.
  for (const [key, color] of [
    ['asked_pct', ASKED_COLOR],
    ['memory_pct', MEMORY_COLOR],
  ] as const) {
    const points = rows.map((r) => `${f(x(r.day))},${f(y(r[key]))}`).join(' ');
    out.push(
      `<polyline points="${points}" fill="none" stroke="${color}" stroke-width="2.2" stroke-linejoin="round"/>`,
    );
    for (const r of rows)
      out.push(
        `<circle cx="${f(x(r.day))}" cy="${f(y(r[key]))}" r="2.6" fill="${color}"><title>day ${r.day}: ${r[key].toFixed(1)}%</title></circle>`,
      );
  }
  // Wrong-by-memory row.
  const rowY = 308;
  out.push(
    `<text x="${PLOT.left}" y="${rowY - 14}" font-size="10" fill="#495057">wrong actions by memory, per day (total ${summary.total_wrong_by_memory})</text>`,
    `<line x1="${PLOT.left}" y1="${rowY}" x2="${PLOT.right}" y2="${rowY}" stroke="#e9ecef" stroke-width="1"/>`,
  );
  for (const r of rows) {
    if (r.wrong_by_memory === 0)
      out.push(
        `<circle cx="${f(x(r.day))}" cy="${rowY}" r="2.4" fill="#adb5bd"><title>day ${r.day}: 0</title></circle>`,
      );
    else
      out.push(
        `<circle cx="${f(x(r.day))}" cy="${rowY}" r="8" fill="${WRONG_COLOR}"><title>day ${r.day}: ${r.wrong_by_memory}</title></circle>`,
        `<text x="${f(x(r.day))}" y="${rowY + 3.5}" text-anchor="middle" font-size="9.5" font-weight="bold" fill="#ffffff">${r.wrong_by_memory}</text>`,
      );
  }
  // Legend (one row; widths estimated from the label lengths).
  const ly = 336;
  let lx = PLOT.left;
  const item = (swatch: string, label: string) => {
    out.push(
      swatch,
      `<text x="${lx + 28}" y="${ly + 3.5}" font-size="10.5" fill="#212529">${esc(label)}</text>`,
    );
    lx += 28 + Math.ceil(label.length * 5.5) + 24;
  };
  for (const [color, label] of [
    [ASKED_COLOR, 'share asked'],
    [MEMORY_COLOR, 'share handled by memory'],
  ] as const)
    item(
      `<line x1="${lx}" y1="${ly}" x2="${lx + 22}" y2="${ly}" stroke="${color}" stroke-width="2.2"/><circle cx="${lx + 11}" cy="${ly}" r="2.6" fill="${color}"/>`,
      label,
    );
  item(
    `<line x1="${lx}" y1="${ly}" x2="${lx + 22}" y2="${ly}" stroke="${ASKED_COLOR}" stroke-width="1" stroke-dasharray="5 4"/>`,
    'target: day-1 share asked − 60%',
  );
  item(`<circle cx="${lx + 11}" cy="${ly}" r="6" fill="${WRONG_COLOR}"/>`, 'wrong by memory');
  const verdict = summary.bar.holds ? 'PASS' : 'FAIL';
  out.push(
    `<text x="${W / 2}" y="${H - 6}" text-anchor="middle" font-size="10" fill="${summary.bar.holds ? '#2b8a3e' : WRONG_COLOR}">${esc(
      `THE BAR: ${verdict} — day 1 ${summary.day1_asked_pct.toFixed(1)}% asked, week 2 mean ${summary.week2_mean_asked_pct?.toFixed(1) ?? 'n/a'}%, fall ${summary.fall_pct?.toFixed(1) ?? 'n/a'}%, wrong by memory ${summary.total_wrong_by_memory}`,
    )}</text>`,
    '</svg>',
  );
  return `${out.join('\n')}\n`;
}
