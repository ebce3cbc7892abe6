/**
 * Handoff's MCP server over streamable HTTP, on loopback only, behind the API's bearer key
 * (`HANDOFF_API_KEY`, checked exactly as the web API checks it). Each MCP session has its
 * own transport and server, so a question put to the person (elicitation) comes back to
 * the tool call that asked it.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve as serveNode } from '@hono/node-server';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import type { Env } from '../config/env.ts';
import { InvalidInputError } from '../errors/index.ts';
import { bearer } from '../web/app.ts';

export interface McpHttpServer {
  /** The endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  close(): Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
}

/** Serves MCP at `/mcp` on 127.0.0.1:`port` (0 picks a free one); `build` makes each session's server. */
export async function serveMcpHttp(opts: {
  env: Env;
  port: number;
  build: () => McpServer;
}): Promise<McpHttpServer> {
  if (!opts.env.HANDOFF_API_KEY)
    throw new InvalidInputError(
      'handoff mcp --http needs HANDOFF_API_KEY: set it to the bearer key MCP clients must send (Authorization: Bearer ...)',
    );
  const sessions = new Map<string, Session>();
  let port = opts.port;
  const app = new Hono();
  app.use('/mcp', bearer(opts.env, undefined, false));
  app.all('/mcp', async (c) => {
    const id = c.req.header('mcp-session-id');
    let session = id ? sessions.get(id) : undefined;
    if (!session) {
      if (id)
        return c.json(
          {
            jsonrpc: '2.0',
            error: { code: -32001, message: 'unknown MCP session: initialize again' },
            id: null,
          },
          404,
        );
      if (c.req.method !== 'POST')
        return c.json(
          {
            jsonrpc: '2.0',
            error: { code: -32000, message: 'no MCP session: POST initialize first' },
            id: null,
          },
          400,
        );
      const server = opts.build();
      const transport: WebStandardStreamableHTTPServerTransport =
        new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableDnsRebindingProtection: true,
          allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`],
          onsessioninitialized: (sessionId) => void sessions.set(sessionId, { transport, server }),
          onsessionclosed: (sessionId) => void sessions.delete(sessionId),
        });
      await server.connect(transport);
      session = { transport, server };
    }
    return session.transport.handleRequest(c.req.raw);
  });
  const http = serveNode({ hostname: '127.0.0.1', port: opts.port, fetch: app.fetch });
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new InvalidInputError(`cannot listen on 127.0.0.1:${opts.port}: ${error.code ?? error.message}`),
      ),
    );
    http.once('listening', () => resolve(http.address() as AddressInfo));
  });
  port = address.port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      for (const { server } of sessions.values()) await server.close().catch(() => undefined);
      sessions.clear();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        if ('closeAllConnections' in http) http.closeAllConnections(); // open SSE streams end with it
      });
    },
  };
}
