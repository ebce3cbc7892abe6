import type { Command } from 'commander';
import { pageOfArtifacts } from '../../artifacts/artifact-list.ts';
import { artifactSummary, getArtifact } from '../../artifacts/artifacts.ts';
import { getRun } from '../../runs/run-repository.ts';
import { cliContext } from '../context.ts';
import { flags, printNextPage, withPaging } from '../paging.ts';
import { printJson, printTable } from '../output.ts';

/**
 * `handoff artifacts [--run ID] [--limit N] [--cursor C] [--json]` (newest first, a page at a
 * time: docs/lists.md) and `handoff artifacts show ID [--json]`.
 */
export function registerArtifactCommands(program: Command): void {
  const artifacts = withPaging(
    program
      .command('artifacts')
      .description('what runs produced: drafts, tickets, digests, reports (newest first)')
      .enablePositionalOptions()
      .option('--run <ID>', "only this run's artifacts"),
  )
    .option('--json', 'print JSON')
    .action(async (options: { run?: string; json?: boolean; limit: number; cursor?: string }) => {
      const { engine } = await cliContext();
      if (options.run !== undefined) await getRun(engine.store, options.run); // an unknown run: one line, exit 1
      const page = await pageOfArtifacts(engine.store, options);
      const list = page.items;
      printNextPage(`handoff artifacts${flags(options)}`, page.next_cursor);
      if (options.json) return printJson(list.map(artifactSummary));
      if (list.length === 0)
        return void console.log('No artifacts yet: a run records its drafts, tickets and report.');
      printTable(
        ['id', 'kind', 'title', 'run', 'item', 'decision', 'created'],
        list.map((a) => [a.id, a.kind, a.title, a.run_id, a.item_id, a.decision_id, a.created_at]),
      );
    });

  artifacts
    .command('show')
    .description('one artifact: where it came from, then its content')
    .argument('<ID>', 'the artifact id (see `handoff artifacts`)')
    .option('--json', 'print JSON (with the body)')
    .action(async (id: string, options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const { version: _version, ...artifact } = await getArtifact(engine.store, id);
      if (options.json) return printJson(artifact);
      const facts: [string, string | null][] = [
        ['id', artifact.id],
        ['kind', artifact.kind],
        ['title', artifact.title],
        ['type', `${artifact.content_type}, ${artifact.size} bytes`],
        ['workflow', artifact.workflow_id],
        ['run', artifact.run_id],
        ['item', artifact.item_id],
        ['decision', artifact.decision_id],
        ['lives at', artifact.pointer],
        ['created', artifact.created_at],
      ];
      for (const [name, value] of facts) if (value !== null) console.log(`${name.padEnd(9)} ${value}`);
      console.log('');
      process.stdout.write(
        artifact.body === null
          ? '(too large to keep a copy here; see "lives at")\n'
          : `${artifact.body.replace(/\n?$/, '\n')}`,
      );
    });
}
