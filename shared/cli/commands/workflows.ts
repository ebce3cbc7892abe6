import type { Command } from 'commander';
import { InvalidInputError } from '../../errors/index.ts';
import { loadWorkflowFile } from '../../workflows/load.ts';
import { deleteWorkflow, listWorkflows, saveWorkflow } from '../../workflows/repository.ts';
import { listTemplates, readTemplate } from '../../workflows/templates.ts';
import type { Workflow } from '../../workflows/schema.ts';
import { cliContext } from '../context.ts';
import { printJson, printTable } from '../output.ts';

function triggerLabel(trigger: Workflow['trigger']): string {
  if ('schedule' in trigger) return `schedule ${trigger.schedule}`;
  return 'webhook' in trigger ? 'webhook' : 'manual';
}

export function registerWorkflowCommands(program: Command): void {
  const workflows = program
    .command('workflows')
    .description('list workflows, or add one from a YAML/JSON file')
    .enablePositionalOptions()
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const list = await listWorkflows(engine.store);
      if (options.json) return printJson(list.map((w) => ({ id: w.id, name: w.name, trigger: w.trigger })));
      if (list.length === 0)
        return console.log('No workflows yet. Add one: handoff workflows add FILE (see handoff templates)');
      printTable(
        ['id', 'name', 'trigger', 'threshold'],
        list.map((w) => [w.id, w.name, triggerLabel(w.trigger), w.confidence_threshold ?? 'default']),
      );
    });

  workflows
    .command('add FILE')
    .description('validate a workflow file and save it (an existing id only with --replace)')
    .option('--replace', 'replace the workflow of the same id, if there is one')
    .option('--json', 'print JSON')
    .action(async (file: string, options: { json?: boolean; replace?: boolean }) => {
      const workflow = await loadWorkflowFile(file);
      const { engine } = await cliContext();
      if (!options.replace && (await engine.store.get('workflows', workflow.id)) !== undefined)
        throw new InvalidInputError(
          `workflow "${workflow.id}" already exists; add --replace to replace it, or give the file another id`,
        );
      await saveWorkflow(engine.store, workflow);
      if (options.json) return printJson({ id: workflow.id });
      console.log(`Saved workflow ${workflow.id}. Run it: handoff run ${workflow.id}`);
    });

  workflows
    .command('remove ID')
    .description('delete a workflow (its runs and audit stay)')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const { engine } = await cliContext();
      await deleteWorkflow(engine.store, id);
      if (options.json) return printJson({ id, removed: true });
      console.log(`Removed workflow ${id}.`);
    });

  program
    .command('templates [ID]')
    .description('list the workflow templates, or print one')
    .option('--json', 'print JSON')
    .action(async (id: string | undefined, options: { json?: boolean }) => {
      if (id) {
        const yaml = await readTemplate(id);
        return options.json ? printJson({ id, yaml }) : void process.stdout.write(yaml);
      }
      const templates = await listTemplates();
      if (options.json)
        return printJson(
          templates.map(({ id: tid, name, description, credentials }) => ({
            id: tid,
            name,
            description,
            credentials,
          })),
        );
      printTable(
        ['id', 'name', 'credentials', 'description'],
        templates.map((t) => [t.id, t.name, t.credentials.join(', ') || 'none', t.description]),
        70,
      );
      console.log('\nPrint one with: handoff templates ID > my-workflow.yaml');
    });
}
