import { promises as fs } from 'node:fs';
import type { Command } from 'commander';
import { Secret } from '../../credentials/secret.ts';
import { InvalidInputError } from '../../errors/index.ts';
import {
  addEntry,
  listEntries,
  removeEntry,
  setDisabled,
  setTemplate,
  statusOf,
  type RegistryEntry,
} from '../../integrations/registry.ts';
import { requiredCredentials, type ServerEntryInput } from '../../integrations/servers.ts';
import {
  describePaused,
  describeResumed,
  pauseWhenDeleted,
  resumeWhenSet,
} from '../../schedules/resume-when-set.ts';
import { cliContext } from '../context.ts';
import { printJson, printTable } from '../output.ts';

/** Where `credentials set` reads a value from when no file is named. */
export interface CliInput {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

interface AddOptions {
  stdio?: string;
  url?: string;
  credential: string[];
  title?: string;
  write: string[];
  read: string[];
  irreversible: string[];
  json?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Splits `cmd "an arg" 'another'` into words, as a shell would (quotes, no expansion). */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const m of line.matchAll(pattern)) words.push(m[1]?.replace(/\\(.)/g, '$1') ?? m[2] ?? m[3] ?? '');
  return words;
}

function target(reg: RegistryEntry): string {
  const t = reg.entry.transport;
  if (t.kind === 'stdio') return [t.command, ...t.args].join(' ');
  if (t.kind === 'http') return t.url;
  if (t.kind === 'slack') return `${t.base_url} (Web API)`;
  return `AgentCore ${t.service.replace('_', ' ')}${t.identifier ? ` ${t.identifier}` : ''}`;
}

/** Builds a user entry from `integrations add` options. */
export function entryFromOptions(name: string, options: AddOptions): ServerEntryInput {
  if ((options.stdio === undefined) === (options.url === undefined))
    throw new InvalidInputError('give exactly one of --stdio "command args" or --url URL');
  const common = {
    name,
    title: options.title ?? name,
    writes: options.write,
    reads: options.read,
    irreversible: options.irreversible,
    credential_free: options.credential.length === 0,
  };
  if (options.url !== undefined) {
    if (options.credential.length > 1)
      throw new InvalidInputError('--url takes one --credential (the bearer token)');
    const bearer = options.credential[0];
    return { ...common, transport: { kind: 'http', url: options.url, ...(bearer ? { bearer } : {}) } };
  }
  const [command, ...args] = splitCommand(options.stdio ?? '');
  if (!command) throw new InvalidInputError('--stdio needs a command, like --stdio "npx -y some-mcp-server"');
  // VAR=CRED passes credential CRED as variable VAR; a bare CRED is passed under its own name.
  const credentialEnv = Object.fromEntries(
    options.credential.map((c) => {
      const [variable, credential] = c.includes('=') ? c.split('=', 2) : [c, c];
      return [variable ?? c, credential ?? c];
    }),
  );
  return { ...common, transport: { kind: 'stdio', command, args, credential_env: credentialEnv } };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

/** The value for `credentials set`: a file, --value (discouraged), or stdin. One trailing newline is dropped. */
async function readValue(name: string, options: { valueFile?: string; value?: string }, input: CliInput) {
  if (options.valueFile !== undefined && options.value !== undefined)
    throw new InvalidInputError('give --value-file or --value, not both');
  let raw: string;
  if (options.valueFile !== undefined) raw = await fs.readFile(options.valueFile, 'utf8');
  else if (options.value !== undefined) {
    process.stderr.write(
      'warning: --value leaves the secret in your shell history; prefer stdin or --value-file\n',
    );
    raw = options.value;
  } else {
    if (input.stdin.isTTY) process.stderr.write(`Paste the value of ${name}, then press Enter and Ctrl-D:\n`);
    raw = await readAll(input.stdin);
  }
  const value = raw.replace(/\r?\n$/, '');
  if (value === '') throw new InvalidInputError(`no value given for ${name}; nothing was stored`);
  return new Secret(value);
}

/** `handoff integrations ...` and `handoff credentials ...`. */
export function registerIntegrationCommands(
  program: Command,
  input: CliInput = { stdin: process.stdin },
): void {
  const integrations = program
    .command('integrations')
    .description('tool servers the agents may use, and what each still needs')
    .enablePositionalOptions()
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const have = await engine.credentials.names();
      const rows = (await listEntries(engine.store)).map((reg) => ({
        name: reg.entry.name,
        title: reg.entry.title,
        kind: reg.entry.transport.kind,
        source: reg.source,
        status: statusOf(reg, have, process.env),
        credentials: requiredCredentials(reg.entry),
        credential_free: reg.entry.credential_free,
        target: target(reg),
      }));
      if (options.json) return printJson(rows);
      printTable(
        ['name', 'kind', 'status', 'credentials', 'target'],
        rows.map((r) => [
          r.name,
          r.kind,
          r.status,
          r.credential_free
            ? 'none needed'
            : r.kind === 'agentcore'
              ? 'AWS'
              : r.credentials.join(', ') || '-',
          r.target,
        ]),
        60,
      );
    });

  integrations
    .command('add NAME')
    .description('add a tool server: a stdio command or a streamable-HTTP URL')
    .option('--stdio <COMMAND>', 'the command line that starts the server, quoted')
    .option('--url <URL>', 'the streamable-HTTP endpoint')
    .option(
      '--credential <NAME>',
      'bearer token (--url), or env VAR=NAME for the child (--stdio); repeatable',
      collect,
      [],
    )
    .option('--title <TEXT>', 'a readable name')
    .option(
      '--write <TOOL>',
      'a tool that changes the world, whatever its annotations say; repeatable',
      collect,
      [],
    )
    .option('--read <TOOL>', 'a tool you trust as read-only; repeatable', collect, [])
    .option('--irreversible <TOOL>', 'a tool the gate must always ask about; repeatable', collect, [])
    .option('--json', 'print JSON')
    .action(async (name: string, options: AddOptions) => {
      const { engine } = await cliContext();
      const reg = await addEntry(engine.store, entryFromOptions(name, options));
      const status = statusOf(reg, await engine.credentials.names(), process.env);
      if (options.json) return printJson({ name, status });
      console.log(`Added ${name} (${target(reg)}): ${status}`);
    });

  integrations
    .command('remove NAME')
    .description('remove a tool server you added')
    .action(async (name: string) => {
      const { engine } = await cliContext();
      await removeEntry(engine.store, name);
      console.log(`Removed ${name}.`);
    });

  for (const [verb, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    integrations
      .command(`${verb} NAME`)
      .description(`${verb} a tool server`)
      .action(async (name: string) => {
        const { engine } = await cliContext();
        await setDisabled(engine.store, name, disabled);
        console.log(`${disabled ? 'Disabled' : 'Enabled'} ${name}.`);
      });
  }

  integrations
    .command('template NAME TOOL JSON')
    .description(
      'set the arguments of a world-changing tool, filled from the item: {"title": "{{item.subject}}"}',
    )
    .action(async (name: string, tool: string, json: string) => {
      let template: unknown;
      try {
        template = JSON.parse(json);
      } catch {
        throw new InvalidInputError(`the template for ${name} ${tool} is not valid JSON`);
      }
      if (!template || typeof template !== 'object' || Array.isArray(template))
        throw new InvalidInputError('a template is a JSON object of the tool arguments');
      const { engine } = await cliContext();
      await setTemplate(engine.store, name, tool, template as Record<string, unknown>);
      console.log(`Set the template of ${name} ${tool}.`);
    });

  const credentials = program
    .command('credentials')
    .description('credentials for integrations, encrypted at rest (names only are ever shown)')
    .enablePositionalOptions()
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const list = await engine.credentials.list();
      if (options.json) return printJson(list);
      if (list.length === 0)
        return console.log('No credentials yet. Set one: handoff credentials set NAME < file');
      printTable(
        ['name', 'sealed with', 'updated'],
        list.map((c) => [c.name, c.cipher, c.updated_at]),
      );
    });

  credentials
    .command('set NAME')
    .description('store a credential; the value comes from stdin, --value-file, or (discouraged) --value')
    .option('--value-file <FILE>', 'read the value from this file')
    .option('--value <VALUE>', 'the value itself: it stays in your shell history, prefer stdin')
    .action(async (name: string, options: { valueFile?: string; value?: string }) => {
      const value = await readValue(name, options, input);
      const { engine } = await cliContext();
      const info = await engine.credentials.set(name, value);
      console.log(`Set ${info.name} (sealed with ${info.cipher}).`);
      // A workflow paused only until this was set runs again (see docs/assistant.md).
      const resumed = describeResumed(await resumeWhenSet(engine));
      if (resumed) console.log(resumed);
    });

  credentials
    .command('delete NAME')
    .description('forget a credential')
    .action(async (name: string) => {
      const { engine } = await cliContext();
      await engine.credentials.delete(name);
      console.log(`Deleted ${name}.`);
      // A workflow that needs it waits until it is set again (see docs/integrations.md).
      const paused = describePaused(await pauseWhenDeleted(engine, name));
      if (paused) console.log(paused);
    });
}
