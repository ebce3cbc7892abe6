import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlackRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface SlackReply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * A local stand-in for Slack's Web API on 127.0.0.1: records each request and answers
 * as Slack does (HTTP 200 with `{"ok": ...}`, unless the test says otherwise).
 */
export async function slackServer(reply: (req: SlackRequest) => SlackReply): Promise<{
  baseUrl: string;
  requests: SlackRequest[];
  close(): Promise<void>;
}> {
  const requests: SlackRequest[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const request: SlackRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {},
      };
      requests.push(request);
      const answer = reply(request);
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A bot token shaped like Slack's, so redaction is tested against the real shape. */
export const TOKEN = 'xoxb-1111-2222-testtokenvalue';
