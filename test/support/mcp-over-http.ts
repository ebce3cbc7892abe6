/**
 * Serves an MCP server over streamable HTTP on 127.0.0.1:0, as a remote MCP service would:
 * each request gets its own stateless transport and a fresh server from `build`.
 */
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface ServedMcp {
  /** The endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

/**
 * Starts the HTTP server. `admit` may answer a request itself (say, a 401) and return false;
 * otherwise the request goes to a server made by `build`.
 */
export async function serveMcpOverHttp(
  build: (req: IncomingMessage) => McpServer,
  admit: (req: IncomingMessage, res: ServerResponse) => boolean = () => true,
): Promise<ServedMcp> {
  const http: Server = createServer((req, res) => {
    if (!admit(req, res)) return;
    void (async () => {
      const server = build(req);
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
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
