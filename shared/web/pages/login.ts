/** The login page (`/login`), shown when HANDOFF_UI_PASSWORD is set. */
import { html } from 'hono/html';
import { bare } from './layout.ts';
import { csrfField, flash, type Html } from './ui.ts';

/** The login form; `next` is where to go after logging in (a same-site path). */
export function loginPage(csrf: string, next: string, problem: string | null): Html {
  return bare(
    'Log in',
    html`<h1>Log in</h1>
      ${flash(problem, 'error')}
      <form class="login" method="post" action="/login">
        ${csrfField({ csrf })}
        <input type="hidden" name="next" value="${next}" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button class="button button-primary" type="submit">Log in</button>
      </form>
      <p class="muted small">The password is the server's HANDOFF_UI_PASSWORD.</p>`,
  );
}
