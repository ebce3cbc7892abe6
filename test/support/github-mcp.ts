/**
 * A stand-in for GitHub's remote MCP server: the SDK's McpServer over streamable HTTP on
 * 127.0.0.1:0, exposing the tool names the PR review template uses, recording every call.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface GitHubStandIn {
  url: string;
  /** Every tool call, in order. */
  calls: { tool: string; args: Record<string, unknown> }[];
  close(): Promise<void>;
}

function build(calls: GitHubStandIn['calls']): McpServer {
  const server = new McpServer({ name: 'github', version: '1.0.0' });
  const record = (tool: string) => async (args: Record<string, unknown>) => {
    calls.push({ tool, args });
    return { content: [{ type: 'text' as const, text: `${tool} done` }] };
  };
  const repo = { owner: z.string(), repo: z.string() };
  server.registerTool(
    'create_and_submit_pull_request_review',
    {
      description: 'Create and submit a review for a pull request.',
      inputSchema: {
        ...repo,
        pullNumber: z.number().int(),
        body: z.string().min(1),
        event: z.enum(['APPROVE', 'REQUEST_CHANGES', 'COMMENT']),
        commitID: z.string().optional(),
      },
      annotations: { readOnlyHint: false },
    },
    record('create_and_submit_pull_request_review'),
  );
  server.registerTool(
    'add_issue_comment',
    {
      description: 'Add a comment to an issue or pull request.',
      inputSchema: { ...repo, issue_number: z.number().int(), body: z.string().min(1) },
      annotations: { readOnlyHint: false },
    },
    record('add_issue_comment'),
  );
  server.registerTool(
    'update_issue',
    {
      description: 'Update an issue or pull request (labels, title, state).',
      inputSchema: { ...repo, issue_number: z.number().int(), labels: z.array(z.string()).optional() },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    record('update_issue'),
  );
  return server;
}

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

/** Starts the stand-in; each request gets its own stateless transport. */
export async function startGitHubStandIn(): Promise<GitHubStandIn> {
  const calls: GitHubStandIn['calls'] = [];
  const http: Server = createServer((req, res) => {
    void (async () => {
      const server = build(calls);
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.method === 'POST' ? await body(req) : undefined);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
