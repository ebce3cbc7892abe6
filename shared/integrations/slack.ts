import { redact, type Secret } from '../credentials/secret.ts';
import { SLACK_API, type ServerEntry } from './servers.ts';
import { IntegrationError, qualifiedName, type IntegrationTool } from './tool.ts';
import { errorMessage } from '../errors/index.ts';

type Fetch = typeof fetch;

const TIMEOUT_MS = 20_000;

/**
 * A small client for Slack's Web API, called directly (Slack's MCP server was
 * deprecated upstream). The base URL is configurable so tests talk to 127.0.0.1.
 */
export class SlackClient {
  constructor(
    private readonly token: Secret,
    private readonly baseUrl: string = SLACK_API,
    private readonly fetchImpl: Fetch = fetch,
  ) {}

  /** Public and private channels the bot can see (names and ids only). */
  async listChannels(limit = 100): Promise<{ id: string; name: string }[]> {
    const query = new URLSearchParams({ limit: String(limit), types: 'public_channel,private_channel' });
    const data = await this.call('conversations.list', { method: 'GET', query });
    const channels = Array.isArray(data.channels) ? (data.channels as Record<string, unknown>[]) : [];
    return channels.map((c) => ({ id: String(c.id ?? ''), name: String(c.name ?? '') }));
  }

  /** Posts a message: it cannot be taken back once people have read it. */
  async postMessage(channel: string, text: string): Promise<{ channel: string; ts: string }> {
    const data = await this.call('chat.postMessage', { method: 'POST', body: { channel, text } });
    return { channel: String(data.channel ?? channel), ts: String(data.ts ?? '') };
  }

  private async call(
    method: string,
    request: { method: 'GET'; query: URLSearchParams } | { method: 'POST'; body: Record<string, unknown> },
  ): Promise<Record<string, unknown>> {
    const base = this.baseUrl.replace(/\/+$/, '');
    const url = request.method === 'GET' ? `${base}/${method}?${request.query}` : `${base}/${method}`;
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method: request.method,
        headers: {
          Authorization: `Bearer ${this.token.reveal()}`,
          ...(request.method === 'POST' ? { 'Content-Type': 'application/json; charset=utf-8' } : {}),
        },
        ...(request.method === 'POST' ? { body: JSON.stringify(request.body) } : {}),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw this.error(method, errorMessage(error));
    }
    const data = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok || data.ok !== true)
      throw this.error(method, String(data.error ?? `HTTP ${response.status}`));
    return data;
  }

  private error(method: string, reason: string): IntegrationError {
    return new IntegrationError(redact(`slack ${method} failed: ${reason}`, [this.token]));
  }
}

/** The Slack entry's tools: list_channels reads; post_message changes the world and cannot be undone. */
export function slackTools(entry: ServerEntry, client: SlackClient): IntegrationTool[] {
  const tool = (t: Omit<IntegrationTool, 'server' | 'name'>): IntegrationTool => ({
    ...t,
    server: entry.name,
    name: qualifiedName(entry.name, t.tool),
  });
  return [
    tool({
      tool: 'list_channels',
      description: 'Lists the Slack channels the bot can see (id and name).',
      inputSchema: {
        type: 'object',
        properties: { limit: { type: 'number', description: 'At most this many (default 100)' } },
      },
      hints: { readOnlyHint: true, destructiveHint: false },
      invoke: async (args) => {
        const limit = typeof args.limit === 'number' && args.limit > 0 ? Math.min(args.limit, 1000) : 100;
        return { text: JSON.stringify(await client.listChannels(limit)), isError: false };
      },
    }),
    tool({
      tool: 'post_message',
      description: 'Posts a message to a Slack channel. Irreversible: people read it at once.',
      inputSchema: {
        type: 'object',
        properties: {
          channel: { type: 'string', description: 'Channel id (C0123...) or #name' },
          text: { type: 'string', description: 'The message' },
        },
        required: ['channel', 'text'],
      },
      hints: { readOnlyHint: false, destructiveHint: true },
      invoke: async (args) => {
        if (typeof args.channel !== 'string' || typeof args.text !== 'string')
          throw new IntegrationError('post_message needs a channel and a text (strings)');
        const posted = await client.postMessage(args.channel, args.text);
        return { text: `posted to ${posted.channel} at ${posted.ts}`, isError: false };
      },
    }),
  ];
}
