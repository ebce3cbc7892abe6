/** Overview (`/`): what the agent handled today and this week, what waits for you, recent runs, Run now. */
import { html } from 'hono/html';
import type { Run } from '../../records/runs.ts';
import { countsOfRuns, describeCounts, type Counts } from '../../runs/counts.ts';
import { periodsOf } from '../../runs/stats.ts';
import type { Workflow } from '../../workflows/schema.ts';
import { shell, type Visitor } from './layout.ts';
import { scheduleInWords } from '../../schedules/words.ts';
import { checkSourceForm } from './source-check.ts';
import { csrfField, flash, plural, statusPill, when, type Html } from './ui.ts';

export interface OverviewData {
  workflows: Workflow[];
  runs: Run[];
  pending: number;
  /** The threshold in force when a workflow sets none. */
  threshold: number;
  /** The profile's time zone, which schedules are read in (default UTC). */
  timeZone?: string;
  /** The id of the workflow reading the demo inbox, when there is one ("Deliver more demo mail"). */
  demo?: string | null;
  now?: Date;
}

/** The tiles split what was acted on by who decided; their words are the outcome sentence's (runs/counts.ts). */
const TILES: { key: keyof Counts; title: string; hint: string }[] = [
  { key: 'acted', title: 'Acted', hint: 'confident + by rules + by you' },
  { key: 'confident', title: 'Confident', hint: 'acted alone, above the threshold' },
  { key: 'by_rules', title: 'By rules', hint: 'your rules and learned ones' },
  { key: 'by_you', title: 'By you', hint: 'acted on your answer' },
  { key: 'asked', title: 'Asked', hint: 'set aside for a person' },
  { key: 'left_alone', title: 'Left alone', hint: "nothing done (a rule's skip included)" },
];

/** A short description of a workflow's trigger, its schedule in words read in `timeZone`. */
export function triggerText(workflow: Workflow, timeZone = 'UTC'): string {
  if (workflow.trigger.schedule !== undefined) return scheduleInWords(workflow.trigger.schedule, timeZone);
  return workflow.trigger.webhook ? 'webhook' : 'manual';
}

function tiles(day: Counts, seven: Counts): Html {
  return html`<section aria-labelledby="stats-title">
    <h2 id="stats-title">What it did</h2>
    <p class="summary" data-outcome-today>Today: ${describeCounts(day)}.</p>
    <ul class="tiles">
      ${TILES.map(
        (t) =>
          html`<li class="tile tile-${t.key}">
            <span class="tile-title">${t.title}</span>
            <span class="tile-number">${day[t.key]}</span>
            <span class="tile-sub">today · <strong>${seven[t.key]}</strong> this week</span>
            <span class="tile-hint">${t.hint}</span>
          </li>`,
      )}
    </ul>
    <p class="muted small" data-outcome-week>This week: ${describeCounts(seven)}.</p>
  </section>`;
}

function waiting(pending: number): Html {
  if (pending === 0)
    return html`<p class="callout callout-calm">
      Nothing is waiting for you. Runs that need a person show up here.
    </p>`;
  return html`<p class="callout callout-amber">
    <span class="pending">${plural(pending, 'pending decision')}</span>
    <span>The agent set these aside rather than guess.</span>
    <a class="button button-amber" href="/activity">Answer them</a>
  </p>`;
}

function workflowList(workflows: Workflow[], visitor: Visitor, threshold: number, timeZone: string): Html {
  if (workflows.length === 0)
    return html`<p data-no-workflows>
      No workflows yet. <a class="button button-primary" href="/chat">Describe one in chat</a> or
      <a href="/workflows/new">write one</a>.
    </p>`;
  return html`<ul class="workflows">
    ${workflows.map(
      (w) =>
        html`<li class="workflow">
          <div>
            <strong><a href="/workflows/${encodeURIComponent(w.id)}">${w.name}</a></strong>
            <span class="muted"
              >${w.id} · ${triggerText(w, timeZone)} · threshold
              ${(w.confidence_threshold ?? threshold).toFixed(2)}${
                w.confidence_threshold === undefined ? ' (from Settings)' : ''
              }</span
            >
          </div>
          <div class="workflow-actions">
            ${checkSourceForm(visitor, w)}
            <form method="post" action="/runs">
              ${csrfField(visitor)}
              <input type="hidden" name="workflow_id" value="${w.id}" />
              <button class="button" type="submit">
                Run now<span class="visually-hidden">: ${w.name}</span>
              </button>
            </form>
          </div>
        </li>`,
    )}
  </ul>`;
}

/** A run's outcome sentence; a skipped run says why. */
function outcomeText(r: Run): string {
  return r.status === 'skipped' && r.skip_reason ? `skipped: ${r.skip_reason}` : describeCounts(r.counts);
}

/** The demo's "a new day of mail" button: the next run shows the rules its answers taught. */
function demoMore(visitor: Visitor): Html {
  return html`<form method="post" action="/demo/more" class="inline-form demo-more">
    ${csrfField(visitor)}
    <button class="button" type="submit">Deliver more demo mail</button>
    <span class="muted small"
      >A new day in the demo inbox, from the same senders: see your rules at work.</span
    >
  </form>`;
}

/** The runs as a table linking to each run's inspector; on a phone each run is a stacked card. */
export function runsTable(runs: Run[], names: Map<string, string>): Html {
  if (runs.length === 0) return html`<p>No runs yet. Press <strong>Run now</strong> on a workflow.</p>`;
  return html`<table class="table table-stack">
    <thead>
      <tr>
        <th scope="col">Run</th>
        <th scope="col">Workflow</th>
        <th scope="col">Status</th>
        <th scope="col">Started</th>
        <th scope="col">Outcome</th>
      </tr>
    </thead>
    <tbody>
      ${runs.map(
        (r) =>
          html`<tr>
            <td data-label="Run"><a class="mono" href="/runs/${r.id}">${r.id}</a></td>
            <td data-label="Workflow">${names.get(r.workflow_id) ?? r.workflow_id}</td>
            <td data-label="Status">${statusPill(r.status)}</td>
            <td data-label="Started">${when(r.started_at)}</td>
            <td data-label="Outcome" class="muted">${outcomeText(r)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The overview page. */
export function overviewPage(visitor: Visitor, data: OverviewData, notice: string | null): Html {
  const periods = periodsOf(data.runs, data.now);
  const names = new Map(data.workflows.map((w) => [w.id, w.name]));
  return shell({
    title: 'Overview',
    nav: 'overview',
    visitor,
    pending: data.pending,
    notice: flash(notice),
    body: html`<h1>Overview</h1>
      ${waiting(data.pending)}
      <section aria-labelledby="workflows-title">
        <h2 id="workflows-title">Workflows</h2>
        ${workflowList(data.workflows, visitor, data.threshold, data.timeZone ?? 'UTC')}
        ${data.demo ? demoMore(visitor) : ''}
      </section>
      ${tiles(countsOfRuns(periods.today), countsOfRuns(periods.this_week))}
      <section aria-labelledby="runs-title">
        <h2 id="runs-title">Recent runs</h2>
        ${runsTable(data.runs.slice(0, 8), names)}
        ${data.runs.length > 8 ? html`<p><a href="/runs">All ${data.runs.length} runs</a></p>` : ''}
      </section> `,
  });
}
