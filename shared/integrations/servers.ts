/**
 * Tool servers are entries, not code: how to reach a server, which credentials it
 * needs, and which of its tools change the world. Adding a service is an entry and
 * a credential, never a change to the executor.
 */
import { z } from 'zod';
import { CredentialNameSchema } from '../credentials/credentials.ts';

/** Slack's Web API, the default base URL of the Slack entry. */
export const SLACK_API = 'https://slack.com/api';

/** Entry names are snake_case without `__`, so `<entry>__<tool>` splits one way only. */
export const ENTRY_NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** Tool names in `writes`/`reads`/`irreversible`: exact, or a prefix ending in `*`. */
const ToolPattern = z.string().min(1);

const StdioTransport = z.strictObject({
  kind: z.literal('stdio'),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Plain environment for the child (no secrets here). */
  env: z.record(z.string(), z.string()).default({}),
  /** Environment variable → credential name, filled in when the child is spawned. */
  credential_env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), CredentialNameSchema).default({}),
});

const HttpTransport = z.strictObject({
  kind: z.literal('http'),
  url: z.url(),
  /** Sent as `Authorization: Bearer <value>`. */
  bearer: CredentialNameSchema.optional(),
});

const SlackTransport = z.strictObject({
  kind: z.literal('slack'),
  base_url: z.url().default(SLACK_API),
  token: CredentialNameSchema,
});

const AgentCoreTransport = z.strictObject({
  kind: z.literal('agentcore'),
  service: z.enum(['browser', 'code_interpreter']),
  /** A custom tool's identifier; default the AWS-managed one (`aws.codeinterpreter.v1`). */
  identifier: z.string().min(1).optional(),
});

export const TransportSchema = z.discriminatedUnion('kind', [
  StdioTransport,
  HttpTransport,
  SlackTransport,
  AgentCoreTransport,
]);

/** One registry entry: a tool server, what it needs, and which of its tools change the world. */
export const ServerEntrySchema = z.strictObject({
  name: z.string().regex(ENTRY_NAME, { message: 'must be snake_case (letters, digits, single _)' }),
  title: z.string().min(1),
  description: z.string().default(''),
  transport: TransportSchema,
  /** Needs no credential at all (shown as such in the list). */
  credential_free: z.boolean().default(false),
  /** Tools that change the world whatever the server's annotations say. */
  writes: z.array(ToolPattern).default([]),
  /** Tools trusted as read-only even without `readOnlyHint: true`. */
  reads: z.array(ToolPattern).default([]),
  /** World-changing tools the gate must always ask about (besides `destructiveHint`). */
  irreversible: z.array(ToolPattern).default([]),
  /** Argument templates for world-changing tools, filled from the item: `{"title": "{{item.subject}}"}`. */
  templates: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
});

export type ServerEntry = z.infer<typeof ServerEntrySchema>;
export type ServerEntryInput = z.input<typeof ServerEntrySchema>;
export type Transport = z.infer<typeof TransportSchema>;

/** The credential names an entry needs before it can connect. */
export function requiredCredentials(entry: ServerEntry): string[] {
  const t = entry.transport;
  switch (t.kind) {
    case 'stdio':
      return [...new Set(Object.values(t.credential_env))];
    case 'http':
      return t.bearer ? [t.bearer] : [];
    case 'slack':
      return [t.token];
    case 'agentcore':
      return [];
  }
}

const BUILTIN_INPUTS: ServerEntryInput[] = [
  {
    name: 'gmail',
    title: 'Gmail',
    description:
      'Gmail over its stdio MCP server, which runs its own OAuth (refresh token from its auth flow).',
    transport: {
      kind: 'stdio',
      command: 'npx',
      args: ['-y', '@shinzolabs/gmail-mcp@1.7.4'],
      env: { TELEMETRY_ENABLED: 'false' },
      credential_env: {
        CLIENT_ID: 'GMAIL_CLIENT_ID',
        CLIENT_SECRET: 'GMAIL_CLIENT_SECRET',
        REFRESH_TOKEN: 'GMAIL_REFRESH_TOKEN',
      },
    },
    irreversible: ['send_*', 'delete_*', 'trash_*'],
  },
  {
    name: 'linear',
    title: 'Linear',
    description: "Linear's official remote MCP server (streamable HTTP).",
    transport: { kind: 'http', url: 'https://mcp.linear.app/mcp', bearer: 'LINEAR_API_KEY' },
    writes: ['create_*', 'update_*', 'delete_*'],
    irreversible: ['delete_*'],
  },
  {
    name: 'github',
    title: 'GitHub',
    description: "GitHub's official remote MCP server (streamable HTTP).",
    transport: { kind: 'http', url: 'https://api.githubcopilot.com/mcp/', bearer: 'GITHUB_TOKEN' },
    writes: ['create_*', 'update_*', 'add_*', 'merge_*', 'push_*', 'delete_*'],
    irreversible: ['merge_*', 'push_*', 'delete_*'],
    // A pull request's event item carries owner, repo, number and head_sha (shared/sources/event).
    templates: {
      create_and_submit_pull_request_review: {
        owner: '{{item.owner}}',
        repo: '{{item.repo}}',
        pullNumber: '{{item.number}}',
        commitID: '{{item.head_sha}}',
        event: 'COMMENT',
        body: '{{note_or_reasoning}}',
      },
      add_issue_comment: {
        owner: '{{item.owner}}',
        repo: '{{item.repo}}',
        issue_number: '{{item.number}}',
        body: '{{note_or_reasoning}}',
      },
      update_issue: {
        owner: '{{item.owner}}',
        repo: '{{item.repo}}',
        issue_number: '{{item.number}}',
        labels: ['low-risk'],
      },
    },
  },
  {
    name: 'fetch',
    title: 'Web fetch',
    description: 'The credential-free web fetcher (mcp-server-fetch): reads a URL as markdown.',
    transport: { kind: 'stdio', command: 'uvx', args: ['mcp-server-fetch'] },
    credential_free: true,
    reads: ['fetch'],
  },
  {
    name: 'agentcore_browser',
    title: 'AgentCore Browser',
    description: 'Amazon Bedrock AgentCore Browser: uses the AWS credentials of the deployment.',
    transport: { kind: 'agentcore', service: 'browser' },
  },
  {
    name: 'agentcore_code_interpreter',
    title: 'AgentCore Code Interpreter',
    description: 'Amazon Bedrock AgentCore Code Interpreter: uses the AWS credentials of the deployment.',
    transport: { kind: 'agentcore', service: 'code_interpreter' },
  },
  {
    name: 'slack',
    title: 'Slack',
    description: "Slack's Web API directly (its MCP server was deprecated upstream).",
    transport: { kind: 'slack', token: 'SLACK_BOT_TOKEN' },
    writes: ['post_message'],
    reads: ['list_channels'],
    irreversible: ['post_message'],
  },
];

/** The entries every installation has; a user entry of the same name replaces one. */
export const BUILTIN_ENTRIES: readonly ServerEntry[] = BUILTIN_INPUTS.map((e) => ServerEntrySchema.parse(e));
