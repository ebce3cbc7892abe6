import { html } from 'hono/html';
import type { Html } from './ui.ts';

/** The "Just this once" control of an answer form: checked, the answer teaches nothing and cancels nothing. */
export function onceBox(id: string): Html {
  return html`<label class="once" for="${id}"
    ><input id="${id}" type="checkbox" name="once" value="1" /> Just this once
    <span class="muted">(teach nothing)</span></label
  >`;
}

/**
 * The "Only this workflow" control of an answer form: checked, the rule the answer teaches is
 * kept to the question's workflow instead of every workflow reading the same mailbox.
 */
export function scopeBox(id: string): Html {
  return html`<label class="once" for="${id}"
    ><input id="${id}" type="checkbox" name="scope" value="workflow" /> Only this workflow
    <span class="muted">(not others reading this mailbox)</span></label
  >`;
}
