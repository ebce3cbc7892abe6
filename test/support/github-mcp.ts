/**
 * A stand-in for GitHub's remote MCP server: the SDK's McpServer over streamable HTTP on
 * 127.0.0.1:0, exposing the tool names the PR review template uses, recording every call.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { serveMcpOverHttp } from './mcp-over-http.ts';

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

/** Starts the stand-in; each request gets its own stateless transport. */
export async function startGitHubStandIn(): Promise<GitHubStandIn> {
  const calls: GitHubStandIn['calls'] = [];
  return { ...(await serveMcpOverHttp(() => build(calls))), calls };
}
