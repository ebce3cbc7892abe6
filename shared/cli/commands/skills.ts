import type { Command } from 'commander';
import { deleteSkill, skillUsers } from '../../library/usage.ts';
import { saveSkill, skills } from '../../skills/skills.ts';
import { cliContext } from '../context.ts';
import { printJson, printTable } from '../output.ts';
import { readFileOrStdin, versionOption } from './library-input.ts';

/** `handoff skills`: list, add (a new version), show and delete named Markdown instructions. */
export function registerSkillCommands(program: Command): void {
  const cmd = program
    .command('skills')
    .description('list skills: named, versioned Markdown instructions a workflow includes (skills: [NAME])')
    .enablePositionalOptions()
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const list = await skills.listLatest(engine.store);
      const rows = [];
      for (const s of list)
        rows.push({
          name: s.name,
          version: s.version,
          created_at: s.created_at,
          used_by: await skillUsers(engine.store, s.name),
        });
      if (options.json) return printJson(rows);
      if (rows.length === 0)
        return console.log('No skills yet. Add one: handoff skills add NAME --file FILE.md');
      printTable(
        ['name', 'version', 'used by', 'saved'],
        rows.map((r) => [r.name, r.version, r.used_by.join(', ') || '-', r.created_at]),
      );
    });

  cmd
    .command('add NAME')
    .description('save a skill from --file FILE (or stdin); a changed text is a new version')
    .option('--file <FILE>', 'the Markdown file')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { file?: string; json?: boolean }) => {
      const { text } = await readFileOrStdin(options.file, 'skill text');
      const { engine } = await cliContext();
      const { saved, created } = await saveSkill(engine.store, name, text);
      if (options.json) return printJson({ name: saved.name, version: saved.version, created });
      console.log(
        created
          ? `Saved skill ${saved.name}, version ${saved.version}. Include it in a workflow: skills: [${saved.name}]`
          : `Skill ${saved.name} is unchanged (version ${saved.version}).`,
      );
    });

  cmd
    .command('show NAME')
    .description('print a skill (default its latest version)')
    .option('--version <N>', 'an older version')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { version?: string; json?: boolean }) => {
      const version = versionOption(options.version);
      const { engine } = await cliContext();
      const skill = await skills.get(engine.store, name, version);
      const versions = (await skills.versions(engine.store, name)).map((v) => v.version);
      if (options.json)
        return printJson({
          name: skill.name,
          version: skill.version,
          created_at: skill.created_at,
          body: skill.content.body,
          versions,
        });
      process.stdout.write(`${skill.content.body.trimEnd()}\n`);
    });

  cmd
    .command('delete NAME')
    .description('delete a skill and all its versions (refused while a workflow or agent includes it)')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const versions = await deleteSkill(engine.store, name);
      if (options.json) return printJson({ name, deleted: true, versions });
      console.log(`Deleted skill ${name} (${versions} version${versions === 1 ? '' : 's'}).`);
    });
}
