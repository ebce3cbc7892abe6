/**
 * Settings (`/settings`): the confidence threshold, the notify channel and the UI
 * base URL, stored in the store so they change behaviour without editing a file.
 */
import { html } from 'hono/html';
import { NOTIFY_CHANNELS, type Settings, type StoredSettings } from '../../settings/settings.ts';
import type { Workflow } from '../../workflows/schema.ts';
import { shell, type Visitor } from './layout.ts';
import type { Profile } from '../../profile/profile.ts';
import { profileSection } from './profile-section.ts';
import { csrfField, flash, type Html } from './ui.ts';

export interface SettingsData {
  /** The values in force. */
  current: Settings;
  /** What applies when nothing is stored. */
  defaults: Settings;
  stored: StoredSettings | null;
  workflows: Workflow[];
  pending: number;
  /** Field errors of a refused save. */
  errors: Record<string, string>;
  /** The person's profile, and field errors of a refused profile save. */
  profile?: Profile;
  profileErrors?: Record<string, string>;
}

function overrides(workflows: Workflow[]): Html | string {
  const own = workflows.filter((w) => w.confidence_threshold !== undefined);
  if (own.length === 0) return '';
  const every = own.length === workflows.length;
  return html`${
      every
        ? html`<p class="callout callout-blocked small" data-every-overrides>
            Every workflow sets its own threshold, so this one is used by none of them. Tick "Apply to every
            workflow" to make them use it.
          </p>`
        : ''
    }
    <p class="small muted">
      Workflows with their own threshold keep it:
      ${own.map((w, i) => html`${i > 0 ? ', ' : ''}${w.name} (${w.confidence_threshold!.toFixed(2)})`)}.
    </p>
    <label class="checkbox"
      ><input type="checkbox" name="apply_to_workflows" data-apply-to-workflows /> Apply to every workflow
      (each one's own number is removed)</label
    >`;
}

function fieldError(errors: Record<string, string>, name: string): Html | string {
  return errors[name] ? html`<p class="field-error" id="${name}-error">${errors[name]}</p>` : '';
}

/** The Settings page. */
export function settingsPage(visitor: Visitor, data: SettingsData, notice: string | null): Html {
  const { current, defaults, stored, errors } = data;
  const t = current.confidence_threshold;
  return shell({
    title: 'Settings',
    nav: 'settings',
    visitor,
    pending: data.pending,
    notice: flash(
      notice ??
        (Object.keys(errors).length || Object.keys(data.profileErrors ?? {}).length
          ? 'Nothing was saved: see below.'
          : null),
      notice ? 'ok' : 'error',
    ),
    scripts: ['settings.js'],
    body: html`<h1>Settings</h1>
      <form class="settings" method="post" action="/settings">
        ${csrfField(visitor)}
        <fieldset>
          <legend>Confidence threshold</legend>
          <p class="small">
            One number decides how much it bothers you. Below it, the agent sets an item aside and asks you;
            at or above it, the agent acts alone. <strong>Higher asks more</strong> (0.8 is sensible for the
            first week); lower asks less once the rules have built up. Applies from the next run.
          </p>
          <div class="range">
            <label for="confidence_threshold">Threshold</label>
            <input
              id="confidence_threshold"
              name="confidence_threshold"
              type="range"
              min="0"
              max="1"
              step="0.05"
              value="${t.toFixed(2)}"
              aria-describedby="threshold-value"
            />
            <output id="threshold-value" for="confidence_threshold" data-range-output>${t.toFixed(2)}</output>
          </div>
          <p class="small muted">
            Default ${defaults.confidence_threshold.toFixed(2)}
            (CONFIDENCE_THRESHOLD)${stored?.confidence_threshold == null ? ' — in use' : ''}.
          </p>
          ${overrides(data.workflows)} ${fieldError(errors, 'confidence_threshold')}
        </fieldset>
        <fieldset>
          <legend>Notifications</legend>
          <label for="notify_channel">Notify channel</label>
          <select id="notify_channel" name="notify_channel">
            ${NOTIFY_CHANNELS.map(
              (ch) =>
                html`<option value="${ch}" ${ch === current.notify_channel ? html`selected` : ''}>
                  ${ch}
                </option>`,
            )}
          </select>
          <p class="small muted">
            Where a waiting decision is announced. Default ${defaults.notify_channel} (NOTIFY_CHANNEL).
          </p>
          ${fieldError(errors, 'notify_channel')}
          <label for="ui_base_url">UI base URL</label>
          <input
            id="ui_base_url"
            name="ui_base_url"
            type="url"
            inputmode="url"
            placeholder="${defaults.ui_base_url}"
            value="${stored?.ui_base_url ?? ''}"
            aria-describedby="ui-base-help"
          />
          <p class="small muted" id="ui-base-help">
            Builds the link in each notification. Leave empty for ${defaults.ui_base_url}.
          </p>
          ${fieldError(errors, 'ui_base_url')}
        </fieldset>
        <button class="button button-primary" type="submit">Save settings</button>
      </form>
      ${data.profile ? profileSection(visitor, data.profile, data.profileErrors ?? {}) : ''}`,
  });
}
