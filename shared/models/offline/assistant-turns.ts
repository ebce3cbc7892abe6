/**
 * The offline model's turns as the workspace assistant: the triage agent hands the request
 * to the Builder or the Operator (operator-turns.ts); the Builder reads a description
 * (describe-workflow.ts), starts from a template, validates, previews and asks to save, or
 * changes, shows or saves the chat's draft (refine-draft.ts). Every turn is chosen from the
 * history and the prompt's draft line alone.
 */
import type { PlannedTurn, TurnInput } from '../turn-model.ts';
import { lastToolResults, systemText } from '../turn-model.ts';
import { allResults, draftIn, lastRequest, type Json } from './chat-history.ts';
import {
  describeSchedule,
  describeWorkflow,
  providerHost,
  type DescribedWorkflow,
} from './describe-workflow.ts';
import { BUILDER_WORDS, REFINEMENT_START, cannotOffline, operatorIntent, smallTalk } from './intents.ts';
import { asksToSaveDraft, asksToShowDraft, refineDraft } from './refine-draft.ts';
import { plural } from '../../text/plural.ts';

export { operatorTurn } from './operator-turns.ts';

const HELP =
  'I can build a workflow from a description ("every weekday at 8, archive newsletters in my inbox"), run one, and show and answer what is waiting. What would you like?';

/** A change to the chat's draft the request asks for (null: it asks for none). */
function refinement(draft: Json | null, request: string): Json | null {
  if (!draft) return null;
  if (BUILDER_WORDS.test(request) && !REFINEMENT_START.test(request) && describesAnew(request)) return null;
  return refineDraft(draft, request);
}

/** "run it now" with a draft and no workflow named: the draft is meant, and it is not saved. */
function runsTheDraft(request: string): boolean {
  return operatorIntent(request)?.kind === 'run' && /\b(it|this|the draft)\b/i.test(request);
}

/** A whole description (what to do, and from where or when), not a change to a part. */
function describesAnew(request: string): boolean {
  const d = describeWorkflow(request, null);
  return d.actions.length > 0 && (d.schedule !== null || d.source.kind !== 'missing');
}

/** The triage agent: hand off, or answer small talk itself; what it cannot read, it says so. */
export function triageTurn({ messages, options }: TurnInput): PlannedTurn {
  const request = lastRequest(messages);
  const draft = draftIn(systemText(options));
  const toBuilder = { toolCalls: [{ name: 'transfer_to_builder', input: {} }] };
  if (draft && runsTheDraft(request)) return toBuilder;
  if (operatorIntent(request)) return { toolCalls: [{ name: 'transfer_to_operator', input: {} }] };
  if (asksToShowDraft(request) || (draft && asksToSaveDraft(request))) return toBuilder;
  if (refinement(draft, request)) return toBuilder;
  if (smallTalk(request)) return { text: HELP };
  if (/^\s*(yes|yep|yeah|ok|okay|sure|go ahead|do it)[\s.!]*$/i.test(request))
    return { text: 'Nothing is waiting for your yes right now. What would you like?' };
  if (BUILDER_WORDS.test(request)) return toBuilder;
  return { text: cannotOffline(request) };
}

/** The Builder: change, show or save the draft; or look around, draft from a template, validate, preview, ask to save. */
export function builderTurn({ messages, options }: TurnInput): PlannedTurn {
  const request = lastRequest(messages);
  const draft = draftIn(systemText(options));
  const last = lastToolResults(messages);
  const all = allResults(messages);
  if (last.length === 0) {
    if (asksToShowDraft(request)) {
      if (!draft)
        return {
          text: 'This chat has no draft yet. Describe a workflow ("every weekday at 8, archive newsletters in my inbox") and I will draft it.',
        };
      return { toolCalls: [{ name: 'show_draft', input: {} }] };
    }
    if (draft && asksToSaveDraft(request)) return { toolCalls: [{ name: 'save_workflow', input: {} }] };
    if (draft && runsTheDraft(request))
      return {
        text: `"${String(draft.name)}" is not saved yet, so it cannot run. Say yes to save it, then "run it now".`,
      };
    const refined = refinement(draft, request);
    if (refined) return { toolCalls: [{ name: 'validate_workflow', input: { config: refined } }] };
    if (!BUILDER_WORDS.test(request)) return { text: cannotOffline(request) };
    return {
      toolCalls: [
        { name: 'list_sources', input: {} },
        { name: 'list_integrations', input: {} },
        { name: 'list_templates', input: {} },
      ],
    };
  }
  const names = last.map((r) => r.name);
  if (names.includes('show_draft')) return { toolCalls: [{ name: 'save_workflow', input: {} }] };
  if (names.includes('list_sources')) {
    const described = describeWorkflow(request, knownMaildir(all.get('list_sources')));
    if (described.source.kind === 'missing')
      return {
        text: 'Which mailbox should it read: an IMAP mailbox (its host and login, such as imap.fastmail.com as you@fastmail.com) or the path of a Maildir folder on this machine?',
      };
    return { toolCalls: [{ name: 'get_template', input: { template_id: described.template } }] };
  }
  if (names.includes('get_template')) {
    const template = (all.get('get_template') as Json | undefined)?.config as Json | undefined;
    if (!template) return { text: 'I could not read the template, so I drafted nothing.' };
    const described = describeWorkflow(request, knownMaildir(all.get('list_sources')));
    const config = draftConfig(template, described, request, workflowIds(all.get('list_sources')));
    return { toolCalls: [{ name: 'validate_workflow', input: { config } }] };
  }
  if (names.includes('validate_workflow')) {
    const result = all.get('validate_workflow') as Json | undefined;
    if (result?.ok !== true)
      return {
        text: `I could not ${all.has('list_sources') ? 'draft a valid workflow' : 'make that change'}: ${String((result?.errors as string[] | undefined)?.[0] ?? result?.error ?? 'unknown error')}. ${all.has('list_sources') ? 'Nothing was saved.' : 'The draft is as it was.'}`,
      };
    return { toolCalls: [{ name: 'preview_workflow', input: {} }] };
  }
  if (names.includes('preview_workflow')) return { toolCalls: [{ name: 'save_workflow', input: {} }] };
  if (all.has('show_draft')) {
    const shown = all.get('show_draft') as Json | undefined;
    return { text: `${String(shown?.text ?? shown?.error ?? '')}\nSave it? Say yes, no, or what to change.` };
  }
  if (!all.has('list_sources') && all.has('validate_workflow')) return { text: changedSummary(all) };
  if (!all.has('list_sources')) return { text: confirmText(all.get('save_workflow')) };
  return { text: summary(request, all) };
}

/** What a refinement changed, in the words validate_workflow gave. */
function changedSummary(all: Map<string, unknown>): string {
  const changed = ((all.get('validate_workflow') as Json | undefined)?.changed ?? []) as string[];
  const preview = all.get('preview_workflow') as Json | undefined;
  const rows = (preview?.rows ?? []) as { verdict: string }[];
  const seen =
    preview?.ok === true && rows.length > 0
      ? ` Preview of ${plural(rows.length, 'item')}: ${rows.filter((r) => r.verdict === 'act').length} it would handle, ${rows.filter((r) => r.verdict === 'ask').length} it would ask you about.`
      : preview?.error
        ? ` I could not preview it: ${String(preview.error)}.`
        : '';
  const what =
    changed.length === 0 ? 'Nothing changed: the draft already does that.' : `Changed ${changed.join('; ')}.`;
  return `${what}${seen} Save it? Say yes, no, or what to change.`;
}

function confirmText(step: unknown): string {
  const error = String((step as Json | undefined)?.error ?? '');
  return error.startsWith('Not done yet')
    ? `${error.replace(/^Not done yet: the person must confirm first \((.*)\)\..*$/, '$1')}? Say yes to go ahead.`
    : error || 'Done.';
}

function knownMaildir(sources: unknown): string | null {
  const known = ((sources as Json | undefined)?.known ?? []) as { source: Json }[];
  const maildir = known.find((k) => k.source.type === 'maildir');
  return typeof maildir?.source.path === 'string' ? maildir.source.path : null;
}

function workflowIds(sources: unknown): Set<string> {
  const known = ((sources as Json | undefined)?.known ?? []) as { workflow_id: string }[];
  return new Set(known.map((k) => k.workflow_id));
}

/** The template, changed as the description says. Anything it does not say stays the template's. */
function draftConfig(template: Json, d: DescribedWorkflow, request: string, taken: Set<string>): Json {
  const config: Json = { ...template };
  let id = String(template.id);
  for (let n = 2; taken.has(id); n++) id = `${String(template.id)}-${n}`;
  config.id = id;
  if (d.source.kind === 'maildir' && d.source.path) config.source = { type: 'maildir', path: d.source.path };
  if (d.source.kind === 'imap') {
    const base = (template.source as Json).type === 'imap' ? (template.source as Json) : {};
    const host = String(d.source.host ?? providerHost(request) ?? base.host ?? 'imap.example.com');
    config.source = {
      type: 'imap',
      port: 993,
      tls: true,
      credential: 'MAIL_PASSWORD',
      mailbox: 'INBOX',
      ...base,
      host,
      // The template's login belongs to the template's host; for another host, a guess at its domain.
      user:
        d.source.user ??
        (host === base.host ? base.user : undefined) ??
        `you@${host.replace(/^(imap|outlook)\./, '')}`,
    };
  }
  if (d.source.kind !== 'event') config.trigger = d.schedule ? { schedule: d.schedule } : { manual: true };
  const sourceActions = d.source.kind === 'event' ? [] : ['archive', 'file_ticket', 'draft_reply', 'delete'];
  if (d.actions.length > 0 && d.source.kind !== 'event') {
    const actions = d.actions.filter((a) => sourceActions.includes(a));
    config.actions = actions.map((name) => (name === 'delete' ? { name, irreversible: true } : { name }));
    config.human_gate = {
      options: [
        ...actions.filter((a) => a !== 'delete'),
        ...(actions.includes('delete') ? ['delete'] : []),
        'skip',
      ],
    };
    config.instructions = `${request.trim()}\nWhen a message fits none of this, skip it.`;
    config.name = nameOf(request, String(template.name));
  }
  if (d.threshold !== null) config.confidence_threshold = d.threshold;
  return config;
}

function nameOf(request: string, fallback: string): string {
  const kinds = ['newsletters', 'receipts', 'bug reports', 'invoices', 'customers', 'colleagues'].filter(
    (k) => request.toLowerCase().includes(k),
  );
  return kinds.length > 0 ? `${fallback}: ${kinds.join(', ')}` : fallback;
}

function summary(request: string, all: Map<string, unknown>): string {
  const validated = all.get('validate_workflow') as Json | undefined;
  const preview = all.get('preview_workflow') as Json | undefined;
  const rows = (preview?.rows ?? []) as { verdict: string }[];
  const count = (v: string) => rows.filter((r) => r.verdict === v).length;
  const trigger = validated?.trigger as Json | undefined;
  const when = trigger?.schedule
    ? `${typeof validated?.when === 'string' ? validated.when : describeSchedule(String(trigger.schedule))}, ${String(trigger.schedule)}`
    : trigger?.webhook
      ? 'when its webhook fires'
      : 'when you run it';
  const seen =
    preview?.ok === true
      ? rows.length > 0
        ? ` Preview of ${plural(rows.length, 'item')}: ${count('act')} it would handle, ${count('ask')} it would ask you about, ${count('rule')} a rule decides. Nothing was touched.`
        : ' Its source has nothing to preview right now.'
      : preview?.error
        ? ` I could not preview it: ${String(preview.error)}.`
        : '';
  const registry = ((all.get('list_integrations') as Json | undefined)?.integrations ?? []) as {
    name: string;
  }[];
  const missing = describeWorkflow(request, null).services.filter((s) => !registry.some((r) => r.name === s));
  const left =
    missing.length > 0
      ? ` ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not in the integration registry (see \`handoff integrations\`), so I left ${missing.length > 1 ? 'them' : 'it'} out.`
      : '';
  const said = describeWorkflow(request, null).source;
  const login =
    said.kind === 'imap' && said.user === null
      ? ' I guessed the login: say "as you@yourdomain" to set yours.'
      : '';
  const step = all.get('save_workflow') as Json | undefined;
  const paused = /paused until (.+?) (is|are) set/.exec(String(step?.error ?? ''))?.[1];
  const needs = paused
    ? ` It needs ${paused}, which is not set: set it with \`handoff credentials set ${paused.split(' and ')[0]}\` (or in the card's field on the web) before you say yes, or it is saved paused.`
    : '';
  return `I drafted "${String(validated?.name)}" (${String(validated?.workflow_id)}), reading ${String(validated?.source)} ${when}.${seen}${left}${login}${needs} Save it? Say yes.`;
}
