import type { Command } from 'commander';
import { stringify } from 'yaml';
import { agents, saveAgent } from '../../agents/definitions.ts';
import { agentUsers, deleteAgent } from '../../library/usage.ts';
import { cliContext } from '../context.ts';
import { printJson, printTable } from '../output.ts';
import { parseYamlText, readFileOrStdin, versionOption } from './library-input.ts';

/** `handoff agents`: list, add (a new version), show and delete named agent definitions. */
export function registerAgentCommands(program: Command): void {
  const cmd = program
    .command('agents')
    .description('list agent definitions: named specialists a workflow uses (agents: [NAME])')
    .enablePositionalOptions()
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const rows = [];
      for (const a of await agents.listLatest(engine.store))
        rows.push({
          name: a.name,
          version: a.version,
          created_at: a.created_at,
          description: a.content.description,
          model: a.content.model,
          used_by: await agentUsers(engine.store, a.name),
        });
      if (options.json) return printJson(rows);
      if (rows.length === 0)
        return console.log('No agents yet. Add one: handoff agents add NAME --file FILE.yaml');
      printTable(
        ['name', 'version', 'model', 'used by', 'description'],
        rows.map((r) => [r.name, r.version, r.model, r.used_by.join(', ') || '-', r.description]),
      );
    });

  cmd
    .command('add NAME')
    .description(
      'save an agent from a YAML/JSON --file FILE (or stdin); a changed definition is a new version',
    )
    .option(
      '--file <FILE>',
      'the YAML or JSON file: description, instructions, model, tools, actions, skills',
    )
    .option('--json', 'print JSON')
    .action(async (name: string, options: { file?: string; json?: boolean }) => {
      const { text, from } = await readFileOrStdin(options.file, 'agent definition');
      const data = parseYamlText(text, from);
      const { engine } = await cliContext();
      const { saved, created } = await saveAgent(engine.store, name, data);
      if (options.json) return printJson({ name: saved.name, version: saved.version, created });
      console.log(
        created
          ? `Saved agent ${saved.name}, version ${saved.version}. Use it in a workflow: agents: [${saved.name}]`
          : `Agent ${saved.name} is unchanged (version ${saved.version}).`,
      );
    });

  cmd
    .command('show NAME')
    .description('print an agent definition as YAML (default its latest version)')
    .option('--version <N>', 'an older version')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { version?: string; json?: boolean }) => {
      const version = versionOption(options.version);
      const { engine } = await cliContext();
      const agent = await agents.get(engine.store, name, version);
      const versions = (await agents.versions(engine.store, name)).map((v) => v.version);
      if (options.json)
        return printJson({
          name: agent.name,
          version: agent.version,
          created_at: agent.created_at,
          ...agent.content,
          versions,
        });
      process.stdout.write(stringify(agent.content));
    });

  cmd
    .command('delete NAME')
    .description('delete an agent and all its versions (refused while a workflow uses it)')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const versions = await deleteAgent(engine.store, name);
      if (options.json) return printJson({ name, deleted: true, versions });
      console.log(`Deleted agent ${name} (${versions} version${versions === 1 ? '' : 's'}).`);
    });
}
