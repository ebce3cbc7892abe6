import type { Command } from 'commander';
import { InvalidInputError } from '../../errors/index.ts';
import { cliContext } from '../context.ts';

/** Adds `handoff mcp [--http --port N] [--ask-timeout SECONDS]`: Handoff as an MCP server, until its client leaves or a signal. */
export function registerMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('serve Handoff to MCP hosts and agents: stdio, or streamable HTTP on 127.0.0.1 with --http')
    .option('--http', 'streamable HTTP on 127.0.0.1 (needs HANDOFF_API_KEY as the bearer key)')
    .option('--port <N>', 'with --http: the port (default 3100; 0 picks a free one)')
    .option(
      '--ask-timeout <SECONDS>',
      'how long the person has to answer in the host before items are skipped',
      '300',
    )
    .action(async (options: { http?: boolean; port?: string; askTimeout: string }) => {
      const askTimeoutMs = parseSeconds(options.askTimeout) * 1000;
      if (options.port !== undefined && !options.http)
        throw new InvalidInputError('--port is for --http; the default (stdio) needs no port');
      const port = options.port === undefined ? 3100 : parsePort(options.port);
      const { env, engine } = await cliContext();
      const { buildMcpServer } = await import('../../mcp-server/server.ts');
      const build = () => buildMcpServer(engine, { askTimeoutMs });
      if (!options.http) {
        console.log = console.error; // stdout carries the protocol: nothing else may write there
        const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
        const server = build();
        const closed = new Promise<void>((resolve) => {
          server.server.onclose = resolve;
          process.stdin.once('end', resolve);
        });
        await server.connect(new StdioServerTransport());
        await closed;
        await server.close();
        return;
      }
      const { serveMcpHttp } = await import('../../mcp-server/http.ts');
      const served = await serveMcpHttp({ env, port, build });
      process.stderr.write(`handoff: MCP server on ${served.url} (Authorization: Bearer $HANDOFF_API_KEY)\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      await served.close();
    });
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new InvalidInputError(`--port ${value} is not a port (0-65535)`);
  return port;
}

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new InvalidInputError(`--ask-timeout ${value} is not a number of seconds above 0`);
  return seconds;
}
