import { parseEventBody, pullRequestAction, pullRequestItem, REVIEW_ACTIONS } from './event-items.ts';

/**
 * What a webhook body means for an event workflow: the items to store with the run (as
 * `{"items": [...]}`), a delivery that starts nothing on purpose (GitHub's ping, a pull
 * request being closed), or a refusal with one line saying why.
 */
export type WebhookItems =
  | { kind: 'items'; detail: string; count: number }
  | { kind: 'ignored'; message: string }
  | { kind: 'refused'; message: string; tooLarge?: true };

/** The most a run stores of its items: they live on the run record (DynamoDB items hold 400 KB). */
export const MAX_STORED_ITEMS_BYTES = 128 * 1024;

function stored(body: { items: unknown[] }): WebhookItems {
  const detail = JSON.stringify(body);
  const bytes = Buffer.byteLength(detail, 'utf8');
  if (bytes > MAX_STORED_ITEMS_BYTES)
    return {
      kind: 'refused',
      tooLarge: true,
      message: `the items come to ${Math.ceil(bytes / 1024)} KiB; a run stores at most ${MAX_STORED_ITEMS_BYTES / 1024} KiB of them (send fewer per webhook)`,
    };
  return { kind: 'items', detail, count: body.items.length };
}

/**
 * Reads an event workflow's webhook body. `githubEvent` is GitHub's `X-GitHub-Event` header:
 * `pull_request` becomes one item, `ping` starts nothing, any other event is refused; without
 * it the body must be Handoff's own `{"items": [...]}`.
 */
export function webhookItems(text: string, githubEvent: string | undefined): WebhookItems {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return {
      kind: 'refused',
      message: 'body must be JSON (a GitHub webhook needs content type application/json)',
    };
  }
  if (githubEvent === undefined) {
    const own = parseEventBody(raw);
    if (!own.ok) return { kind: 'refused', message: own.reason };
    return stored(own.body);
  }
  if (githubEvent === 'ping') return { kind: 'ignored', message: 'GitHub ping received; no run started' };
  if (githubEvent !== 'pull_request')
    return {
      kind: 'refused',
      message: `Handoff reads GitHub's pull_request event, not "${githubEvent}"; send only pull requests`,
    };
  const action = pullRequestAction(raw);
  if (action !== null && !REVIEW_ACTIONS.includes(action))
    return {
      kind: 'ignored',
      message: `pull request ${action}: no run started (${REVIEW_ACTIONS.join(', ')} start one)`,
    };
  const pr = pullRequestItem(raw);
  if (!pr.ok) return { kind: 'refused', message: pr.reason };
  return stored({ items: [pr.item] });
}
