import { z } from 'zod';
import { InvalidInputError, isError } from '../errors/index.ts';
import { NotifyError } from './notifier.ts';

export const DEFAULT_SLACK_API_BASE_URL = 'https://slack.com/api';
const TIMEOUT_MS = 10_000;

/** How Handoff reaches Slack's Web API. */
export interface SlackConfig {
  /** A bot token with the chat:write scope. */
  token: string;
  channel: string;
  /** `https://slack.com/api` unless a proxy or a test server stands in. */
  baseUrl: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

const SlackEnvSchema = z.object({
  SLACK_BOT_TOKEN: z.string().min(1, { message: 'is not set: give a bot token with the chat:write scope' }),
  SLACK_CHANNEL: z.string().min(1, { message: 'is not set: name the channel to post to (e.g. C0123ABCD)' }),
  SLACK_API_BASE_URL: z.url({ message: 'must be a URL like https://slack.com/api' }).optional(),
});

/** Reads SLACK_BOT_TOKEN, SLACK_CHANNEL and SLACK_API_BASE_URL; a bad one is one line (never the token). */
export function slackConfigFrom(source: NodeJS.ProcessEnv = process.env): SlackConfig {
  const parsed = SlackEnvSchema.safeParse({
    SLACK_BOT_TOKEN: source.SLACK_BOT_TOKEN ?? '',
    SLACK_CHANNEL: source.SLACK_CHANNEL ?? '',
    SLACK_API_BASE_URL: source.SLACK_API_BASE_URL || undefined,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidInputError(
      `NOTIFY_CHANNEL=slack: ${String(issue?.path[0] ?? 'Slack settings')} ${issue?.message ?? 'is not valid'}`,
    );
  }
  return {
    token: parsed.data.SLACK_BOT_TOKEN,
    channel: parsed.data.SLACK_CHANNEL,
    baseUrl: (parsed.data.SLACK_API_BASE_URL ?? DEFAULT_SLACK_API_BASE_URL).replace(/\/+$/, ''),
  };
}

/** What Slack's error codes mean for the person fixing them. */
const HINTS: Record<string, string> = {
  invalid_auth: 'the token is not valid; check SLACK_BOT_TOKEN',
  not_authed: 'no token was sent; set SLACK_BOT_TOKEN',
  token_revoked: 'the token was revoked; install the app again and update SLACK_BOT_TOKEN',
  account_inactive: 'the token belongs to a deleted user or workspace',
  missing_scope: 'the token lacks a scope; the bot needs chat:write',
  channel_not_found: 'no such channel for this bot; check SLACK_CHANNEL',
  not_in_channel: 'the bot is not in the channel; invite it (/invite @your-bot)',
  is_archived: 'the channel is archived',
  ratelimited: 'Slack rate-limited the call; it will work again shortly',
};

/**
 * Calls one Web API method. Slack answers HTTP 200 with `{"ok": false, "error": ...}` when
 * it refuses, so `ok` is checked, not only the status. Any failure is a NotifyError with
 * one line that never carries the token.
 */
export async function callSlack(
  config: SlackConfig,
  method: string,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const url = `${config.baseUrl.replace(/\/+$/, '')}/${method}`;
  let response: Response;
  try {
    response = await (config.fetch ?? fetch)(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${config.token}`,
        'content-type': 'application/json; charset=utf-8',
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(config.timeoutMs ?? TIMEOUT_MS),
    });
  } catch (error) {
    throw fail(config, `${method}: Slack is unreachable at ${config.baseUrl} (${describe(error)})`);
  }
  if (response.status === 429) {
    const after = response.headers.get('retry-after');
    throw fail(config, `${method}: Slack rate-limited the call${after ? ` (retry after ${after} s)` : ''}`);
  }
  if (!response.ok) throw fail(config, `${method}: Slack answered HTTP ${response.status}`);
  let payload: unknown;
  try {
    payload = await response.json();
  } catch {
    throw fail(config, `${method}: Slack answered HTTP ${response.status} with a body that is not JSON`);
  }
  if (typeof payload !== 'object' || payload === null)
    throw fail(config, `${method}: Slack answered with an unexpected body`);
  const result = payload as Record<string, unknown>;
  if (result.ok !== true) {
    const code = typeof result.error === 'string' ? result.error : 'unknown_error';
    const hint = HINTS[code];
    throw fail(config, `${method} refused: ${code}${hint ? ` (${hint})` : ''}`);
  }
  return result;
}

/** Escapes text for Slack's mrkdwn (only &, < and > are special). */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A link in Slack's `<url|label>` form; characters that would end it early are encoded. */
export function slackLink(url: string, label: string): string {
  const safe = url.replace(/\|/g, '%7C').replace(/</g, '%3C').replace(/>/g, '%3E');
  return `<${safe}|${slackEscape(label)}>`;
}

function fail(config: SlackConfig, reason: string): NotifyError {
  return new NotifyError('slack', redact(reason, config.token));
}

/** Removes the token, and anything shaped like a Slack token, from text shown to people. */
export function redact(text: string, token?: string): string {
  const scrubbed = token ? text.split(token).join('[token]') : text;
  return scrubbed.replace(/xox[a-z]-[A-Za-z0-9-]+/g, '[token]').replace(/\s+/g, ' ');
}

function describe(error: unknown): string {
  if (!isError(error)) return String(error);
  if (error.name === 'TimeoutError') return 'timed out';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}
