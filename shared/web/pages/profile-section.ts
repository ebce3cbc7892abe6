/** The Profile section of the Settings page: name, time zone, notify channel, quiet hours. */
import { html } from 'hono/html';
import type { Profile } from '../../profile/profile.ts';
import { NOTIFY_CHANNELS } from '../../settings/settings.ts';
import type { Visitor } from './layout.ts';
import { csrfField, type Html } from './ui.ts';

function fieldError(errors: Record<string, string>, name: string): Html | string {
  return errors[name] ? html`<p class="field-error" id="profile-${name}-error">${errors[name]}</p>` : '';
}

/** The profile form (posts to `/settings/profile`). */
export function profileSection(visitor: Visitor, profile: Profile, errors: Record<string, string>): Html {
  const quiet = profile.quiet_hours;
  return html`<h2 id="profile">Profile</h2>
    <form class="settings" method="post" action="/settings/profile">
      ${csrfField(visitor)}
      <fieldset>
        <legend>You</legend>
        <label for="profile_name">Name</label>
        <input id="profile_name" name="name" type="text" maxlength="200" value="${profile.name ?? ''}" />
        ${fieldError(errors, 'name')}
        <label for="profile_time_zone">Time zone</label>
        <input
          id="profile_time_zone"
          name="time_zone"
          type="text"
          value="${profile.time_zone}"
          aria-describedby="time-zone-help"
        />
        <p class="small muted" id="time-zone-help">
          An IANA name such as Europe/Paris. Schedules run in it, here and on AWS.
        </p>
        ${fieldError(errors, 'time_zone')}
        <label for="profile_notify">Notify me by</label>
        <select id="profile_notify" name="notify_channel">
          <option value="" ${profile.notify_channel === null ? html`selected` : ''}>
            the Settings channel
          </option>
          ${NOTIFY_CHANNELS.map(
            (ch) =>
              html`<option value="${ch}" ${ch === profile.notify_channel ? html`selected` : ''}>
                ${ch}
              </option>`,
          )}
        </select>
        ${fieldError(errors, 'notify_channel')}
        <label for="quiet_start">Quiet hours from</label>
        <input id="quiet_start" name="quiet_start" type="time" value="${quiet?.start ?? ''}" />
        <label for="quiet_end">until</label>
        <input id="quiet_end" name="quiet_end" type="time" value="${quiet?.end ?? ''}" />
        <p class="small muted">
          Questions raised in quiet hours wait, unanswered, and you are told when they end. Leave both empty
          for none.
        </p>
        ${fieldError(errors, 'quiet_hours')}
      </fieldset>
      <button class="button button-primary" type="submit">Save profile</button>
    </form>`;
}
