import type { Command } from 'commander';
import { InvalidInputError } from '../../errors/index.ts';
import { domainOf, normaliseDomain } from '../../memory/match.ts';
import { RuleMatchSchema, type Rule, type RuleMatch } from '../../records/rule.ts';
import { addRule, revokeRule } from '../../memory/rules-repository.ts';
import { restorableUntil, restoreRule, UNDO_WINDOW_MS } from '../../memory/rule-undo.ts';
import { firesOf, NEVER_FIRED, type RuleFires } from '../../memory/rule-fires.ts';
import { rulesPage } from '../../runs/list-pages.ts';
import { getWorkflow } from '../../workflows/repository.ts';
import { openProposals } from '../../runs/domain-proposals.ts';
import { cliContext } from '../context.ts';
import { printJson, printTable } from '../output.ts';
import { flags, printNextPage, withPaging } from '../paging.ts';
import { printOpenProposals, registerProposalCommands } from './proposals.ts';
import { ruleJson } from './rule-json.ts';

interface AddOptions {
  sender?: string;
  domain?: string;
  keywords?: string;
  action: string;
  workflow?: string;
  note?: string;
  json?: boolean;
}

/** Reads exactly one of --sender, --domain, --keywords into a match, refusing anything loose. */
export function matchFromOptions(options: Pick<AddOptions, 'sender' | 'domain' | 'keywords'>): RuleMatch {
  const given = (['sender', 'domain', 'keywords'] as const).filter((k) => options[k] !== undefined);
  if (given.length !== 1)
    throw new InvalidInputError('give exactly one of --sender ADDR, --domain DOMAIN or --keywords "a,b"');
  if (options.sender !== undefined) {
    const sender = options.sender.trim().toLowerCase();
    if (!domainOf(sender))
      throw new InvalidInputError(
        `--sender "${options.sender}" is not an email address (like ana@vendor.com)`,
      );
    return { sender };
  }
  if (options.domain !== undefined) {
    const domain = normaliseDomain(options.domain);
    if (!domainOf(`x@${domain}`))
      throw new InvalidInputError(`--domain "${options.domain}" is not a domain (like vendor.com)`);
    return { domain };
  }
  const keywords = [
    ...new Set(
      (options.keywords ?? '')
        .split(',')
        .map((k) => k.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  const parsed = RuleMatchSchema.safeParse({ keywords });
  if (!parsed.success)
    throw new InvalidInputError(
      '--keywords needs at least two distinct keywords, comma-separated: "invoice,overdue"',
    );
  return parsed.data;
}

const UNDO_MINUTES = UNDO_WINDOW_MS / 60_000;

function describeMatch(match: RuleMatch): string {
  if ('sender' in match) return `sender ${match.sender}`;
  if ('domain' in match) return `domain @${match.domain}`;
  return `keywords ${match.keywords.join(', ')}`;
}

export function registerRuleCommands(program: Command): void {
  const rules = withPaging(
    program
      .command('rules')
      .description('the rules the gate applies first: yours and learned ones (oldest first)')
      .enablePositionalOptions()
      .option('--json', 'print JSON')
      .option(
        '--search <TEXT>',
        'only the rules whose match, action, pattern, note, workflow or mailbox holds TEXT',
      ),
  ).action(async (options: { json?: boolean; search?: string; limit: number; cursor?: string }) => {
    const { engine } = await cliContext();
    const page = await rulesPage(engine.store, options);
    const list = page.items;
    const fires = await firesOf(
      engine.store,
      list.map((r) => r.id),
    );
    printNextPage(`handoff rules${flags(options)}`, page.next_cursor);
    if (options.json) return printJson(list.map((r) => ruleJson(r, fires.get(r.id))));
    if (list.length === 0 && options.search)
      return console.log(`No rule holds "${options.search}". See them all: handoff rules`);
    if (list.length === 0)
      console.log('No rules yet. Add one: handoff rules add --domain vendor.com --action archive');
    printTable(
      ['id', 'match', 'action', 'source', 'workflow', 'learned from', 'fired', 'note'],
      list.map((r) => [
        r.id,
        describeMatch(r.match),
        r.action,
        r.superseded_by ? `${r.source}, superseded by ${r.superseded_by}` : r.source,
        r.workflow_id ?? 'all',
        r.decision_id ? `${r.decision_id} (${r.item_id ?? '?'})` : null,
        firedWords(fires.get(r.id) ?? NEVER_FIRED),
        r.note,
      ]),
    );
    printOpenProposals(await openProposals(engine.store));
  });

  registerProposalCommands(rules);

  rules
    .command('add')
    .description('add a rule you set: exact sender, whole domain, or two or more keywords')
    .option('--sender <ADDR>', 'an exact sender address')
    .option('--domain <DOMAIN>', 'a whole domain (subdomains are not included)')
    .option('--keywords <LIST>', 'comma-separated keywords; at least two must appear')
    .requiredOption('--action <ACTION>', 'what to do with matching items')
    .option('--workflow <ID>', 'only for this workflow (default: every workflow)')
    .option('--note <TEXT>', 'why, in your words')
    .option('--json', 'print JSON')
    .action(async (options: AddOptions) => {
      const match = matchFromOptions(options);
      const action = options.action.trim();
      if (!/^[a-z][a-z0-9_]*$/.test(action))
        throw new InvalidInputError(`--action "${options.action}" is not an action name (like archive)`);
      const { engine } = await cliContext();
      if (options.workflow) {
        const workflow = await getWorkflow(engine.store, options.workflow);
        const known = [...workflow.actions.map((a) => a.name), 'skip'];
        if (!known.includes(action))
          throw new InvalidInputError(
            `workflow ${workflow.id} has no action "${action}"; choose one of: ${known.join(', ')}`,
          );
      }
      const rule = await addRule(engine.store, {
        workflowId: options.workflow ?? null,
        match,
        action,
        note: options.note ?? null,
      });
      if (options.json) return printJson(ruleJson(rule));
      console.log(`Added ${rule.id}: ${describeMatch(rule.match)} → ${rule.action}`);
    });

  rules
    .command('delete ID')
    .description(
      `delete a rule: it stops firing at once; \`rules restore ID\` undoes it for ${UNDO_MINUTES} minutes`,
    )
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const rule = await revokeRule(engine.store, engine.mirror, id);
      const until = restorableUntil(rule)!.toISOString();
      if (options.json)
        return printJson({
          id: rule.id,
          deleted: true,
          pattern: ruleWords(rule),
          deleted_at: rule.deleted_at,
          restorable_until: until,
        });
      console.log(`Deleted the rule ${rule.id}: ${ruleWords(rule)}. It no longer fires.`);
      console.log(`Undo until ${until}: handoff rules restore ${rule.id}`);
    });

  rules
    .command('restore ID')
    .description(`bring back a rule deleted less than ${UNDO_MINUTES} minutes ago`)
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const rule = await restoreRule(engine.store, engine.mirror, id);
      if (options.json)
        return printJson(ruleJson(rule, (await firesOf(engine.store, [rule.id])).get(rule.id)));
      console.log(`Restored the rule ${rule.id}: ${ruleWords(rule)}. It fires again.`);
    });
}

/** The rule in words: its pattern, else its match and action. */
function ruleWords(rule: Rule): string {
  return rule.pattern ?? `${describeMatch(rule.match)} → ${rule.action}`;
}

/** "3 times, last 2026-12-03 08:00 UTC", or "never". */
function firedWords(fires: RuleFires): string {
  if (fires.fired === 0 || !fires.last_fired_at) return 'never';
  const at = fires.last_fired_at;
  return `${fires.fired === 1 ? 'once' : `${fires.fired} times`}, last ${at.slice(0, 10)} ${at.slice(11, 16)} UTC`;
}
