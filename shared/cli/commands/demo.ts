import type { Command } from 'commander';
import { pathExists } from '../../config/files.ts';
import { InvalidInputError } from '../../errors/index.ts';
import { createDemoMaildir, demoWorkflowYaml } from '../../sources/maildir/demo.ts';
import { deliverMoreDemoMail, demoMaildirPath, demoWorkflowOf } from '../../sources/maildir/demo-more.ts';
import { parseWorkflow } from '../../workflows/load.ts';
import { listWorkflows, saveWorkflow } from '../../workflows/repository.ts';
import { answeredByPerson } from '../../runs/answered.ts';
import { cliContext } from '../context.ts';
import { printJson } from '../output.ts';

/**
 * `handoff demo`: the demo inbox and its inbox-triage workflow (as `handoff start` makes on an
 * empty state); `--more` delivers a fresh day of demo mail, from the senders you answered
 * about too, so the next run shows the rules your answers taught.
 */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('set up the demo inbox and workflow; --more delivers a fresh day of demo mail')
    .option('--more', 'deliver a fresh day of mail into the demo inbox')
    .option('--json', 'print JSON')
    .action(async (options: { more?: boolean; json?: boolean }) => {
      const { env, engine } = await cliContext();
      const maildir = demoMaildirPath(env.HANDOFF_STATE_DIR);
      let workflow = demoWorkflowOf(await listWorkflows(engine.store), env.HANDOFF_STATE_DIR);
      if (options.more) {
        if (!workflow) throw new InvalidInputError('there is no demo inbox yet: run handoff demo first');
        const delivery = await deliverMoreDemoMail(maildir, await answeredByPerson(engine.store));
        if (options.json)
          return printJson({
            workflow: workflow.id,
            maildir,
            delivered: delivery.delivered,
            from_answered: delivery.fromAnswered,
          });
        const taught =
          delivery.fromAnswered > 0
            ? `, ${delivery.fromAnswered} from senders you answered about: the rules your answers taught handle those`
            : '';
        return console.log(
          `Delivered ${delivery.delivered} new messages${taught}. Run it: handoff run ${workflow.id}`,
        );
      }
      if (!workflow) {
        if (!(await pathExists(maildir))) await createDemoMaildir(maildir);
        if ((await engine.store.get('workflows', 'inbox-triage')) !== undefined)
          throw new InvalidInputError(
            'a workflow "inbox-triage" exists and reads another inbox; the demo would replace it',
          );
        workflow = parseWorkflow(demoWorkflowYaml(maildir), 'inbox-triage.yaml');
        await saveWorkflow(engine.store, workflow);
      }
      if (options.json) return printJson({ workflow: workflow.id, maildir, delivered: 0, from_answered: 0 });
      console.log(`The demo inbox is at ${maildir}. Run it: handoff run ${workflow.id}`);
    });
}
