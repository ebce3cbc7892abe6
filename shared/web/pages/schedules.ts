/**
 * Schedules (`/schedules`): every scheduled workflow, its next three firings in the
 * profile's time zone, and Pause / Resume (a CSRF-protected form; the workflow itself is
 * not edited).
 */
import { html } from 'hono/html';
import type { ScheduleView } from '../../schedules/schedules.ts';
import { shell, type Visitor } from './layout.ts';
import { csrfField, flash, scrollable, when, type Html } from './ui.ts';

export interface SchedulesData {
  schedules: ScheduleView[];
  timeZone: string;
  pending: number;
  notice: string | null;
}

function firings(s: ScheduleView): Html {
  if (s.needs)
    return html`<span class="pending" data-needs
      >Paused: needs ${s.needs.join(', ')} (set it in the chat's card or with
      <code>handoff credentials set ${s.needs[0]}</code>).</span
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
              No workflow runs on a schedule. Give one
              <code>trigger: { schedule: "cron(0 8 ? * MON-FRI *)" }</code>.
            </p>`
          : scrollable(
              'Schedules',
              html`<table class="table table-stack" data-schedules>
                <thead>
                  <tr>
                    <th scope="col">Workflow</th>
                    <th scope="col">Schedule</th>
                    <th scope="col">Next firings</th>
                    <th scope="col">State</th>
                    <th scope="col"><span class="visually-hidden">Pause or resume</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${schedules.map(
                    (s) =>
                      html`<tr data-schedule="${s.workflow_id}">
                        <td data-label="Workflow">
                          ${s.name} <span class="muted mono small">${s.workflow_id}</span>
                        </td>
                        <td data-label="Schedule"><code>${s.schedule}</code></td>
                        <td data-label="Next">${firings(s)}</td>
                        <td data-label="State" data-schedule-state>
                          ${s.paused ? (s.needs ? `paused (needs ${s.needs.join(', ')})` : 'paused') : 'active'}${
                            s.changed_at
                              ? html` <span class="muted small">since ${when(s.changed_at)}</span>`
                              : ''
                          }
                        </td>
                        <td data-label="Change">${toggle(s, visitor)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`,
            )
      }`,
  });
}
