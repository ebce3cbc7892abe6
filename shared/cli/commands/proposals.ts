import type { Command } from 'commander';
import {
  acceptProposal,
  dismissProposal,
  evidenceSenders,
  listProposals,
  openProposals,
  proposalPattern,
} from '../../runs/domain-proposals.ts';
import { type DomainProposal } from '../../records/proposals.ts';
import { cliContext } from '../context.ts';
import { printJson, printTable } from '../output.ts';
import { proposalJson, ruleJson } from './rule-json.ts';

/** The "Proposed" section of `handoff rules`: open proposals with their evidence. */
export function printOpenProposals(proposals: DomainProposal[]): void {
  const open = proposals.filter((p) => p.status === 'proposed');
  if (open.length === 0) return;
  console.log(`\nProposed (not applied until you accept: handoff rules accept ID, or dismiss ID):`);
  printTable(
    ['id', 'proposal', 'workflow', 'because you answered'],
    open.map((p) => [
      p.id,
      proposalPattern(p),
      p.workflow_id,
      `${p.action} for ${evidenceSenders(p).join(', ')}`,
    ]),
    96,
  );
}

/** `handoff rules proposals | accept ID | dismiss ID`. */
export function registerProposalCommands(rules: Command): void {
  rules
    .command('proposals')
    .description(
      'domain rules Memory proposes from your answers, with their evidence; never applied until accepted',
    )
    .option('--all', 'include accepted, dismissed and withdrawn ones')
    .option('--json', 'print JSON')
    .action(async (options: { all?: boolean; json?: boolean }) => {
      const { engine } = await cliContext();
      // --all asks for the whole history; the default reads the open ones only.
      const list = options.all ? await listProposals(engine.store) : await openProposals(engine.store);
      if (options.json) return printJson(list.map(proposalJson));
      if (list.length === 0)
        return console.log('No proposals. They appear when you answer two senders of one domain alike.');
      printTable(
        ['id', 'proposal', 'status', 'workflow', 'evidence'],
        list.map((p) => [
          p.id,
          proposalPattern(p),
          p.status,
          p.workflow_id,
          p.evidence.map((e) => `${e.sender} → ${e.action} (${e.decision_id})`).join('; '),
        ]),
        120,
      );
    });

  rules
    .command('accept ID')
    .description('accept a proposal: it becomes a rule you set')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const rule = await acceptProposal(engine.store, id);
      if (options.json) return printJson(ruleJson(rule));
      console.log(
        `Accepted ${id}: ${rule.id} (anything from @${'domain' in rule.match ? rule.match.domain : '?'} → ${rule.action}).`,
      );
    });

  rules
    .command('dismiss ID')
    .description('dismiss a proposal: no rule, and it is not proposed again')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const proposal = await dismissProposal(engine.store, id);
      if (options.json) return printJson(proposalJson(proposal));
      console.log(`Dismissed ${id} (${proposalPattern(proposal)}).`);
    });
}
