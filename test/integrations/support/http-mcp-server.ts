/**
 * A real MCP server (the SDK's McpServer over StreamableHTTPServerTransport) on
 * 127.0.0.1:0 that demands `Authorization: Bearer <token>`, like Linear's or
 * GitHub's remote servers. Some of its failures echo the token back, on purpose.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { serveMcpOverHttp } from '../../support/mcp-over-http.ts';

export interface TicketServer {
  url: string;
  /** Tickets created through the world-changing tool, in order. */
  tickets: { title: string; body: string }[];
  /** The Authorization header of every request. */
  authorizations: string[];
  close(): Promise<void>;
}

function build(token: string, tickets: TicketServer['tickets'], auth: string): McpServer {
  const server = new McpServer({ name: 'tickets', version: '1.0.0' });
  server.registerTool(
    'find_ticket',
    {
      description: 'Finds tickets whose title contains the text.',
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => ({
      content: [{ type: 'text', text: JSON.stringify(tickets.filter((t) => t.title.includes(text))) }],
    }),
  );
  server.registerTool(
    'whoami',
    {
      description: 'Says which token the call used (a careless server would).',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    async () => ({ content: [{ type: 'text', text: `you are calling with ${auth}` }] }),
  );
  server.registerTool(
    'check_scope',
    { description: 'Fails, echoing the token.', inputSchema: {}, annotations: { readOnlyHint: true } },
    async () => {
      throw new Error(`token ${token} lacks scope "admin"`);
    },
  );
  server.registerTool(
    'create_ticket',
    {
      description: 'Creates a ticket.',
      inputSchema: { title: z.string(), body: z.string() },
      annotations: { destructiveHint: false },
    },
    async ({ title, body }) => {
      tickets.push({ title, body });
      return { content: [{ type: 'text', text: `created ticket #${tickets.length}` }] };
    },
  );
  server.registerTool(
    'close_ticket',
    {
      description: 'Closes a ticket (it always fails here, echoing the token).',
      inputSchema: { title: z.string() },
    },
    async () => ({ isError: true, content: [{ type: 'text', text: `refused for Bearer ${token}` }] }),
  );
  return server;
}

/** Starts the server; each request gets its own stateless transport. */
export async function startTicketServer(token: string): Promise<TicketServer> {
  const tickets: TicketServer['tickets'] = [];
  const authorizations: string[] = [];
  const served = await serveMcpOverHttp(
    (req) => build(token, tickets, req.headers.authorization ?? ''),
    (req, res) => {
      const auth = req.headers.authorization ?? '';
      authorizations.push(auth);
      if (auth === `Bearer ${token}`) return true;
      // A careless server that echoes what it was sent.
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: `bad token: ${auth}` }));
      return false;
    },
  );
  return { ...served, tickets, authorizations };
}
