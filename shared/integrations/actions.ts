import {
  performAll,
  type ActRequest,
  type ActResult,
  type ActionContext,
  type ItemSource,
  type ReadResult,
  type SourceItem,
} from '../sources/source.ts';
import { IntegrationError, serverOf, type ToolOutput } from './tool.ts';
import type { Words } from '../actions/words.ts';

/**
 * A world-changing integration tool, as a workflow action. The model never calls it:
 * it proposes it through submit_action, the gate decides, and only then does
 * `call` run, with arguments filled from the item.
 */
export interface IntegrationAction {
  /** `<entry>__<tool>`, the name a workflow declares under `actions`. */
  name: string;
  server: string;
  tool: string;
  changesWorld: boolean;
  irreversible: boolean;
  inputSchema: Record<string, unknown>;
  template: Record<string, unknown> | undefined;
  /** Calls the tool; output and errors are already redacted. */
  call(args: Record<string, unknown>): Promise<ToolOutput>;
}

const DETAIL_CHARS = 300;

/** A value a template may name: text, or a number (an event item's `{{item.number}}`). */
export type TemplateValue = string | number;

/**
 * The values a template may name: `{{item.subject}}`, `{{note}}`, ..., and each of an event
 * item's fields as `{{item.<key>}}` (a pull request's `owner`, `repo`, `number`, `head_sha`).
 */
export function templateVars(item: SourceItem, context: ActionContext): Record<string, TemplateValue> {
  const fields = Object.entries(item.fields ?? {}).map(([key, value]) => [`item.${key}`, value] as const);
  return {
    ...Object.fromEntries(fields),
    'item.id': item.id,
    'item.subject': item.subject,
    'item.text': item.text,
    'item.sender': item.sender.address,
    'item.sender_name': item.sender.name,
    'item.to': item.to.join(', '),
    'item.date': item.date ?? '',
    note: context.note ?? '',
    reasoning: context.reasoning ?? '',
    /** The person's note when they left one, else the agent's reasoning (a review's text). */
    note_or_reasoning: context.note || context.reasoning || '',
    workflow_id: context.workflowId,
    run_id: context.runId,
  };
}

const PLACEHOLDER = /\{\{\s*([a-z_.]+)\s*\}\}/g;
const ONLY_PLACEHOLDER = /^\{\{\s*([a-z_.]+)\s*\}\}$/;

function valueOf(vars: Record<string, TemplateValue>, key: string): TemplateValue {
  const value = vars[key];
  if (value === undefined)
    throw new IntegrationError(`template names {{${key}}}, which is not a known value`);
  return value;
}

/**
 * Fills `{{name}}` placeholders in every string of a JSON template; unknown names are an error.
 * A string that is one placeholder alone takes the value as it is, so `"{{item.number}}"` is a number.
 */
export function fillTemplate(template: unknown, vars: Record<string, TemplateValue>): unknown {
  if (typeof template === 'string') {
    const only = ONLY_PLACEHOLDER.exec(template)?.[1];
    if (only !== undefined) return valueOf(vars, only);
    return template.replace(PLACEHOLDER, (_, key: string) => String(valueOf(vars, key)));
  }
  if (Array.isArray(template)) return template.map((t) => fillTemplate(t, vars));
  if (template && typeof template === 'object')
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fillTemplate(v, vars)]));
  return template;
}

/** The arguments that carry an integration action's words: its text, and its title when it has one. */
const BODY_KEYS = ['text', 'message', 'body', 'content', 'markdown', 'description'];
const TITLE_KEYS = ['title', 'subject', 'summary'];

function firstString(args: Record<string, unknown>, keys: readonly string[]): string | null {
  const key = keys.find((k) => typeof args[k] === 'string');
  return key ?? null;
}

/**
 * The words an integration action would carry for an item (a Slack message's text, an issue's
 * title and body), as its arguments are filled: shown and editable before it is carried out.
 * Null when none of its arguments is text a person would read, or the item cannot fill them.
 */
export function integrationWords(
  action: IntegrationAction,
  item: SourceItem,
  context: ActionContext,
): Words | null {
  let args: Record<string, unknown>;
  try {
    args = argumentsFor(action, item, { ...context, words: undefined });
  } catch {
    return null;
  }
  const body = firstString(args, BODY_KEYS);
  if (body === null) return null;
  const title = firstString(args, TITLE_KEYS);
  return {
    action: action.name,
    title: title === null ? null : (args[title] as string),
    body: args[body] as string,
    by: 'template',
  };
}

/** The arguments with the approved words in place of the ones the template or the item gave. */
function withWords(
  args: Record<string, unknown>,
  words: Words | undefined,
  action: string,
): Record<string, unknown> {
  if (!words || words.action !== action) return args;
  const body = firstString(args, BODY_KEYS);
  const title = firstString(args, TITLE_KEYS);
  return {
    ...args,
    ...(body !== null ? { [body]: words.body } : {}),
    ...(title !== null && words.title !== null ? { [title]: words.title } : {}),
  };
}

/** Property names filled from the item when an action has no template. */
const AUTO: [RegExp, string][] = [
  [/^(title|subject|summary|name)$/i, 'item.subject'],
  [/^(body|description|text|content|message|markdown)$/i, 'item.text'],
  [/^(from|sender|email)$/i, 'item.sender'],
];

/**
 * The arguments for one action on one item: its template filled from the item, or
 * else the tool's string properties that plainly name a part of the item (title,
 * body, sender). A required property neither covers is an error: nothing is sent.
 */
export function argumentsFor(
  action: IntegrationAction,
  item: SourceItem,
  context: ActionContext,
): Record<string, unknown> {
  const vars = templateVars(item, context);
  if (action.template)
    return withWords(
      fillTemplate(action.template, vars) as Record<string, unknown>,
      context.words,
      action.name,
    );
  const properties = (action.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  const args: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(properties)) {
    if (spec.type !== undefined && spec.type !== 'string') continue;
    const source = AUTO.find(([pattern]) => pattern.test(key))?.[1];
    if (source) args[key] = vars[source];
  }
  const required = Array.isArray(action.inputSchema.required)
    ? (action.inputSchema.required as string[])
    : [];
  const missing = required.filter((key) => !(key in args));
  if (missing.length > 0)
    throw new IntegrationError(
      `${action.name} needs ${missing.join(', ')}, which the item does not give; set a template: ` +
        `handoff integrations template ${action.server} ${action.tool} '{"${missing[0]}": "..."}'`,
    );
  return withWords(args, context.words, action.name);
}

/**
 * Wraps a workflow's source so that `<entry>__<tool>` actions are carried out on
 * the integration; every other action goes to the source as before. An integration
 * action whose server is not connected fails: it is never silently skipped.
 */
export class IntegrationActionSource implements ItemSource {
  constructor(
    private readonly inner: ItemSource,
    private readonly actions: ReadonlyMap<string, IntegrationAction>,
    private readonly connected: ReadonlySet<string>,
  ) {}

  listRefs(): Promise<string[]> {
    return this.inner.listRefs();
  }

  read(ref: string): Promise<ReadResult> {
    return this.inner.read(ref);
  }

  readMany(refs: readonly string[]): Promise<ReadResult[]> {
    return this.inner.readMany ? this.inner.readMany(refs) : Promise.all(refs.map((r) => this.inner.read(r)));
  }

  get actBatch(): number | undefined {
    return this.inner.actBatch;
  }

  get actsByRef(): ReadonlySet<string> | undefined {
    return this.inner.actsByRef;
  }

  /** The source's own actions in one batch (its `performMany`), integration calls one by one. */
  async performMany(requests: readonly ActRequest[]): Promise<ActResult[]> {
    const own = requests.flatMap((r, i) => (this.isOwn(r.action) ? [i] : []));
    const done = await performAll(
      this.inner,
      own.map((i) => requests[i]!),
    );
    const results = new Map(own.map((i, k) => [i, done[k]!]));
    const out: ActResult[] = [];
    for (const [i, { action, item, context }] of requests.entries()) {
      const result = results.get(i);
      if (result) out.push(result);
      else
        try {
          out.push({ ok: true, detail: await this.perform(action, item, context) });
        } catch (error) {
          out.push({ ok: false, error });
        }
    }
    return out;
  }

  /** The words an integration action would carry for the item; the wrapped source's for its own actions. */
  wordsFor(action: string, item: SourceItem, context: ActionContext): Words | null {
    const integration = this.actions.get(action);
    if (integration) return integrationWords(integration, item, context);
    return this.inner.wordsFor?.(action, item, context) ?? null;
  }

  /** Whether the wrapped source carries out `action` itself (not an integration's `<entry>__<tool>`). */
  private isOwn(action: string): boolean {
    return !this.actions.has(action) && serverOf(action) === null;
  }

  async perform(action: string, item: SourceItem, context: ActionContext): Promise<string> {
    const integration = this.actions.get(action);
    if (!integration) {
      const server = serverOf(action);
      if (server === null) return this.inner.perform(action, item, context);
      throw new IntegrationError(
        this.connected.has(server)
          ? `${server} has no tool for ${action}`
          : `${action}: integration ${server} is not connected for this run; nothing was done`,
      );
    }
    const output = await integration.call(argumentsFor(integration, item, context));
    if (output.isError) throw new IntegrationError(`${action} failed: ${truncate(output.text)}`);
    return `${action}: ${truncate(output.text) || 'done'}`;
  }
}

function truncate(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > DETAIL_CHARS ? `${flat.slice(0, DETAIL_CHARS - 1)}…` : flat;
}
