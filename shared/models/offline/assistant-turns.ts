/**
 * The offline model's turns as the workspace assistant: the triage agent hands the request
 * to the Builder or the Operator; the Builder reads the description (describe-workflow.ts),
 * starts from a template, validates, previews and asks to save; the Operator looks up what
 * is asked for and asks to carry it out. Every turn is chosen from the history alone.
 */
import type { Message } from '@strands-agents/sdk';
import type { PlannedTurn, TurnInput } from '../turn-model.ts';
import { lastToolResults } from '../turn-model.ts';
import {
  describeSchedule,
  describeWorkflow,
  providerHost,
  type DescribedWorkflow,
} from './describe-workflow.ts';
import { plural } from '../../text/plural.ts';

type Json = Record<string, unknown>;

const OPERATOR_WORDS =
  /\b(run it|run (the |my )?[\w-]+( workflow)? now|start (a |the )?run|run now|pending|waiting|decisions?|questions?|what'?s (waiting|pending)|answer|revoke|add a rule|rules?)\b|^\s*run\b/i;
const BUILDER_WORDS =
  /\b(workflow|every|each|daily|weekday|hourly|morning|inbox|mail|email|archive|triage|newsletters?|receipts?|pull requests?|tickets?|competitors?|watch|build|create|make|set up|draft|delete|folder|maildir|imap|webhook)\b/i;

/** The text of the last message the person wrote (a text block of a user message). */
function lastRequest(messages: Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    const text = m.content
      .flatMap((b) => (b.type === 'textBlock' ? [b.text] : []))
      .join('\n')
      .trim();
    if (text) return text;
  }
  return '';
}

/** Every tool result in the history by tool name (the latest of each). */
function allResults(messages: Message[]): Map<string, unknown> {
  const names = new Map<string, string>();
  const results = new Map<string, unknown>();
  for (const m of messages)
    for (const b of m.content) {
      if (b.type === 'toolUseBlock') names.set(b.toolUseId, b.name);
      if (b.type === 'toolResultBlock') {
        const name = names.get(b.toolUseId);
        const part = b.content[0] as { type?: string; json?: unknown; text?: string } | undefined;
        let value: unknown = part?.json;
        if (value === undefined && part?.text !== undefined) {
          try {
            value = JSON.parse(part.text);
          } catch {
            value = { error: part.text, status: b.status };
          }
        }
        if (name)
          results.set(name, b.status === 'error' ? { error: part?.text ?? 'error', status: 'error' } : value);
      }
    }
  return results;
}

/** The triage agent: hand off, or answer small talk itself. */
export function triageTurn({ messages }: TurnInput): PlannedTurn {
  const request = lastRequest(messages);
  if (answerAsked(request) || ruleAsked(request) || OPERATOR_WORDS.test(request))
    return { toolCalls: [{ name: 'transfer_to_operator', input: {} }] };
  if (BUILDER_WORDS.test(request)) return { toolCalls: [{ name: 'transfer_to_builder', input: {} }] };
  return {
    text: 'I can build a workflow from a description ("every weekday at 8, archive newsletters in my inbox"), run one, and show and answer what is waiting. What would you like?',
  };
}

/** The Builder: look around, draft from a template, validate, preview, ask to save. */
export function builderTurn({ messages }: TurnInput): PlannedTurn {
  const request = lastRequest(messages);
  const last = lastToolResults(messages);
  const all = allResults(messages);
  if (last.length === 0) {
    return {
      toolCalls: [
        { name: 'list_sources', input: {} },
        { name: 'list_integrations', input: {} },
        { name: 'list_templates', input: {} },
      ],
    };
  }
  const names = last.map((r) => r.name);
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
        text: `I could not draft a valid workflow: ${String((result?.errors as string[] | undefined)?.[0] ?? result?.error ?? 'unknown error')}. Nothing was saved.`,
      };
    return { toolCalls: [{ name: 'preview_workflow', input: {} }] };
  }
  if (names.includes('preview_workflow')) return { toolCalls: [{ name: 'save_workflow', input: {} }] };
  return { text: summary(request, all) };
}

/** The Operator: find what is meant, then ask to carry it out. */
export function operatorTurn({ messages }: TurnInput): PlannedTurn {
  const request = lastRequest(messages);
  const last = lastToolResults(messages);
  const all = allResults(messages);
  const rule = ruleAsked(request);
  const answer = answerAsked(request);
  if (last.length === 0)
    return {
      toolCalls: answer
        ? [{ name: 'answer_decision', input: answer }]
        : rule
          ? [{ name: 'add_rule', input: rule }]
          : [
              { name: 'list_workflows', input: {} },
              { name: 'list_pending', input: {} },
            ],
    };
  const names = last.map((r) => r.name);
  if (names.includes('list_workflows')) {
    const workflows = ((all.get('list_workflows') as Json | undefined)?.workflows ?? []) as {
      id: string;
      name: string;
    }[];
    const pending = ((all.get('list_pending') as Json | undefined)?.pending ?? []) as {
      decision_id: string;
      subject: string;
      suggested_action: string;
    }[];
    if (/\b(run|start)\b/i.test(request)) {
      const lower = request.toLowerCase();
      const named = workflows.find((w) => lower.includes(w.id) || lower.includes(w.name.toLowerCase()));
      const newest = workflows.at(-1);
      const target = named ?? (workflows.length === 1 ? workflows[0] : newest);
      if (!target) return { text: 'There is no workflow to run yet. Describe one and I will build it.' };
      return { toolCalls: [{ name: 'start_run', input: { workflow_id: target.id } }] };
    }
    if (pending.length === 0) return { text: 'Nothing is waiting for you.' };
    return {
      text: `${plural(pending.length, 'question')} wait${pending.length === 1 ? 's' : ''} for you: ${pending
        .slice(0, 5)
        .map((p) => `"${p.subject}" (suggested ${p.suggested_action})`)
        .join('; ')}. Answer them on the decision cards or the Activity page.`,
    };
  }
  const step = (all.get('start_run') ?? all.get('answer_decision') ?? all.get('add_rule')) as
    Json | undefined;
  const error = typeof step?.error === 'string' ? step.error : '';
  return {
    text: error.startsWith('Not done yet')
      ? `${error.replace(/^Not done yet: the person must confirm first \((.*)\)\..*$/, '$1')}? Say yes to go ahead.`
      : error || 'Done.',
  };
}

/** "answer dec_… with archive" / "skip dec_…": an answer to a waiting decision, by its id. */
function answerAsked(request: string): Json | null {
  const lower = request.toLowerCase();
  const id = /\b(dec_[a-z0-9_]+)\b/.exec(lower)?.[1];
  const word = /\b(approve|archive|ticket|draft|reply|delete|skip|leave)/.exec(
    lower.replace(id ?? '', ''),
  )?.[1];
  const action = {
    approve: 'approve_suggested',
    archive: 'archive',
    ticket: 'file_ticket',
    draft: 'draft_reply',
    reply: 'draft_reply',
    delete: 'delete',
    skip: 'skip',
    leave: 'skip',
  }[word ?? ''];
  return id && action ? { decision_id: id, action } : null;
}

/** "always archive mail from news@x.example" / "from the domain x.example": a rule you set. */
function ruleAsked(request: string): Json | null {
  const lower = request.toLowerCase();
  if (!/\b(rule|always)\b/.test(lower)) return null;
  const action = /\b(archiv|ticket|draft|reply|skip|leave)/.exec(lower)?.[1];
  const name = {
    archiv: 'archive',
    ticket: 'file_ticket',
    draft: 'draft_reply',
    reply: 'draft_reply',
    skip: 'skip',
    leave: 'skip',
  }[action ?? ''];
  const sender = /\b([a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,})\b/.exec(lower)?.[1];
  const domain = /\bfrom (?:the domain |anyone at |anything from )?@?([a-z0-9-]+(?:\.[a-z0-9-]+)+)\b/.exec(
    lower,
  )?.[1];
  if (!name || (!sender && !domain)) return null;
  return { match: sender ? { sender } : { domain }, action: name, note: request.trim() };
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
    config.source = {
      type: 'imap',
      port: 993,
      tls: true,
      credential: 'MAIL_PASSWORD',
      mailbox: 'INBOX',
      ...base,
      host: d.source.host ?? providerHost(request) ?? base.host ?? 'imap.example.com',
      user: d.source.user ?? base.user ?? 'you@example.com',
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
    ? `${describeSchedule(String(trigger.schedule))}, ${String(trigger.schedule)}`
    : trigger?.webhook
      ? 'when its webhook fires'
      : 'when you run it';
  const seen =
    preview?.ok === true
      ? rows.length > 0
        ? ` Preview of ${rows.length} item(s): ${count('act')} it would handle, ${count('ask')} it would ask you about, ${count('rule')} a rule decides. Nothing was touched.`
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
  return `I drafted "${String(validated?.name)}" (${String(validated?.workflow_id)}), reading ${String(validated?.source)} ${when}.${seen}${left} Save it? Say yes.`;
}
