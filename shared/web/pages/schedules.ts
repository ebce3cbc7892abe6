/**
 * Schedules (`/schedules`): every scheduled workflow, its next three firings in the
 * profile's time zone, and Pause / Resume (a CSRF-protected form; the workflow itself is
 * not edited).
 */
import { html } from 'hono/html';
import type { ScheduleView } from '../../schedules/schedules.ts';
import { shell, type Visitor } from './layout.ts';
import { csrfField, flash, scrollable, statusPill, when, type Html } from './ui.ts';
import type { WorkflowStatus } from '../workflow-status.ts';
import { scheduleInWords } from '../../schedules/words.ts';

export interface SchedulesData {
  schedules: ScheduleView[];
  /** Each scheduled workflow's words, last result and readiness, by workflow id. */
  statuses?: Map<string, WorkflowStatus>;
  timeZone: string;
  pending: number;
  notice: string | null;
}

function firings(s: ScheduleView): Html {
  if (s.needs)
    return html`<span class="pending" data-needs
      >Paused: needs ${s.needs.join(', ')} (set it on the <a href="/credentials">Credentials</a> page, then
      resume).</span
    >`;
  if (s.paused) return html`<span class="muted">Paused: it does not fire until you resume it.</span>`;
  if (s.next.length === 0) return html`<span class="muted">—</span>`;
  return html`<ol class="firings">
    ${s.next.map((f) => html`<li><time datetime="${f.at}">${f.local}</time></li>`)}
  </ol>`;
}

function toggle(s: ScheduleView, visitor: Visitor): Html {
  const op = s.paused ? 'resume' : 'pause';
  return html`<form method="post" action="/schedules/${encodeURIComponent(s.workflow_id)}/${op}">
    ${csrfField(visitor)}
    <button class="button ${s.paused ? 'button-primary' : ''}" type="submit">
      ${s.paused ? 'Resume' : 'Pause'}<span class="visually-hidden"> ${s.name}</span>
    </button>
  </form>`;
}

/** The Schedules page. */
export function schedulesPage(visitor: Visitor, data: SchedulesData): Html {
  const { schedules } = data;
  return shell({
    title: 'Schedules',
    nav: 'schedules',
    visitor,
    pending: data.pending,
    notice: flash(data.notice),
    body: html`<h1>Schedules</h1>
      <p class="lede">
        Every workflow that runs on a schedule, read in your time zone (<strong>${data.timeZone}</strong>, set
        in your profile). Pausing stops it firing here and on AWS without changing the workflow.
      </p>
      ${
        schedules.length === 0
          ? html`<p class="muted">
              No workflow runs on a schedule. Open one on the <a href="/workflows">Workflows</a> page and
              choose "on a schedule".
            </p>`
          : scrollable(
              'Schedules',
              html`<table class="table table-stack" data-schedules>
                <thead>
                  <tr>
                    <th scope="col">Workflow</th>
                    <th scope="col">Schedule</th>
                    <th scope="col">Next firings</th>
                    <th scope="col">Last result</th>
                    <th scope="col">State</th>
                    <th scope="col"><span class="visually-hidden">Pause or resume</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${schedules.map((s) => {
                    const status = data.statuses?.get(s.workflow_id);
                    const blocked = status?.readiness.problems ?? [];
                    return html`<tr data-schedule="${s.workflow_id}">
                      <td data-label="Workflow">
                        <a href="/workflows/${encodeURIComponent(s.workflow_id)}">${s.name}</a>
                        <span class="muted mono small">${s.workflow_id}</span>
                      </td>
                      <td data-label="Schedule" data-schedule-words title="${s.schedule}">
                        ${scheduleInWords(s.schedule, s.time_zone)}
                      </td>
                      <td data-label="Next">${firings(s)}</td>
                      <td data-label="Last result" data-last-result>
                        ${
                          status?.last
                            ? html`${statusPill(status.last.status)}
                                <a href="/runs/${encodeURIComponent(status.last.id)}"
                                  >${status.lastResult}</a
                                >`
                            : html`<span class="muted">no run yet</span>`
                        }
                      </td>
                      <td data-label="State" data-schedule-state>
                        ${
                          blocked.length > 0
                            ? html`<span class="cannot-run">cannot run: ${blocked.join('; ')}</span>`
                            : s.paused
                              ? s.needs
                                ? `paused (needs ${s.needs.join(', ')})`
                                : 'paused'
                              : 'active'
                        }${
                          s.changed_at
                            ? html` <span class="muted small">since ${when(s.changed_at)}</span>`
                            : ''
                        }
                      </td>
                      <td data-label="Change">${toggle(s, visitor)}</td>
                    </tr>`;
                  })}
                </tbody>
              </table>`,
            )
      }`,
  });
}
