/**
 * The chat's draft edited field by field, as `field: value` lines (`handoff chat`'s `edit`,
 * `POST /api/chats/:id/draft`): each value is read in words where it can be (a schedule as
 * "every weekday at 9", a threshold as 80%), the result is checked as a workflow file is, and
 * every problem is listed at once; nothing changes unless all of it is good.
 */
import { parseDocument } from 'yaml';
import { InvalidInputError } from '../errors/index.ts';
import { scheduleOf } from '../models/offline/describe-workflow.ts';
import { checkWorkflowText } from '../workflows/load.ts';
import { SKIP, type Workflow } from '../workflows/schema.ts';

/** The parts of a draft that `field: value` lines change, in the order they are shown. */
export const DRAFT_FIELDS = [
  'name',
  'schedule',
  'source',
  'instructions',
  'actions',
  'options',
  'threshold',
] as const;
export type DraftField = (typeof DRAFT_FIELDS)[number];
export type DraftEdits = Partial<Record<DraftField, string>>;

/** What an edit was refused for: every problem, each one line naming its field. */
export class DraftProblemsError extends InvalidInputError {
  constructor(readonly problems: string[]) {
    super(
      `the draft was not changed: ${problems.length === 1 ? problems[0]! : `${problems.length} problems: ${problems.join('; ')}`}`,
    );
  }
}

const FIELD_HELP = `fields are ${DRAFT_FIELDS.join(', ')}`;
const LINE = /^\s*([A-Za-z_]+)\s*:\s?(.*)$/;

/**
 * Reads `field: value` lines. A line that does not start with a field continues the one above
 * (instructions over several lines). Every unknown field or stray line is a problem.
 */
export function parseFieldLines(text: string): { edits: DraftEdits; problems: string[] } {
  const edits: DraftEdits = {};
  const problems: string[] = [];
  let last: DraftField | null = null;
  text.split(/\r?\n/).forEach((line, i) => {
    const m = LINE.exec(line);
    const field = m?.[1]?.toLowerCase();
    if (m && field !== undefined) {
      if (!(DRAFT_FIELDS as readonly string[]).includes(field)) {
        problems.push(`line ${i + 1}: "${m[1]}" is not a field you can edit here (${FIELD_HELP})`);
        last = null;
        return;
      }
      const name = field as DraftField;
      if (edits[name] !== undefined) problems.push(`line ${i + 1}: ${name} is given twice`);
      edits[name] = m[2]!.trim();
      last = name;
    } else if (line.trim() === '') {
      return;
    } else if (last !== null) {
      edits[last] = `${edits[last]}\n${line.trim()}`.trim();
    } else {
      problems.push(`line ${i + 1}: "${line.trim()}" is not a field: write "field: value" (${FIELD_HELP})`);
    }
  });
  if (problems.length === 0 && Object.keys(edits).length === 0)
    problems.push(`nothing to change: write lines like "schedule: every weekday at 9" (${FIELD_HELP})`);
  return { edits, problems };
}

/** The draft's editable parts as `field: value` lines, to be changed and sent back. */
export function fieldLines(workflow: Workflow): string[] {
  const t = workflow.trigger;
  const source = Object.entries(workflow.source)
    .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(', ');
  return [
    `name: ${workflow.name}`,
    `schedule: ${t.schedule ?? (t.webhook ? 'webhook' : 'manual')}`,
    `source: { ${source} }`,
    `instructions: ${workflow.instructions.trim().replace(/\s*\n\s*/g, ' ')}`,
    `actions: ${workflow.actions.map((a) => a.name).join(', ')}`,
    `options: ${workflow.human_gate.options.join(', ')}`,
    `threshold: ${workflow.confidence_threshold ?? 'default'}`,
  ];
}

/**
 * The draft with `edits` applied, checked as a workflow file is. Throws DraftProblemsError
 * listing every problem: `earlier` ones (lines it could not read), values it cannot read,
 * then what the workflow check finds in the rest.
 */
export function applyDraftEdits(
  draft: Workflow,
  edits: DraftEdits,
  earlier: readonly string[] = [],
): Workflow {
  const problems: string[] = [...earlier];
  const candidate: Record<string, unknown> = { ...draft };
  for (const [field, raw] of Object.entries(edits) as [DraftField, string][]) {
    const value = raw.trim();
    const refuse = (why: string) => problems.push(`${field}: ${why}`);
    switch (field) {
      case 'name':
      case 'instructions':
        candidate[field] = value;
        break;
      case 'schedule': {
        const trigger = triggerOf(value);
        if (trigger) candidate.trigger = trigger;
        else
          refuse(
            `"${value}" is not a schedule: write words like "every weekday at 9", cron(0 9 ? * MON-FRI *), rate(1 hour), manual or webhook`,
          );
        break;
      }
      case 'source': {
        const source = sourceOf(draft.source, value);
        if (typeof source === 'string') refuse(source);
        else candidate.source = source;
        break;
      }
      case 'threshold': {
        const n = thresholdOf(value);
        if (n === undefined) delete candidate.confidence_threshold;
        else if (n === null)
          refuse(`"${value}" is not a threshold: write a number from 0 to 1 (0.8) or a percentage (80%)`);
        else candidate.confidence_threshold = n;
        break;
      }
      case 'actions': {
        const names = listOf(value);
        if (names.length === 0) {
          refuse('needs at least one action, e.g. "archive, flag"');
          break;
        }
        const own = new Map(draft.actions.map((a) => [a.name, a]));
        candidate.actions = names.map((name) => own.get(name) ?? { name });
        // The choices at the gate follow the actions unless options are given too.
        if (edits.options === undefined) {
          const kept = draft.human_gate.options.filter((o) => o === SKIP || names.includes(o));
          const added = names.filter((n) => !draft.human_gate.options.includes(n));
          candidate.human_gate = { options: unique([...kept.filter((o) => o !== SKIP), ...added, SKIP]) };
        }
        break;
      }
      case 'options':
        candidate.human_gate = { options: listOf(value) };
        break;
    }
  }
  // The parts that could be read are checked too, so every problem is told at once.
  const checked = checkWorkflowText(JSON.stringify(candidate), 'draft.json');
  if (!checked.ok) problems.push(...checked.problems.map(inFieldWords));
  if (problems.length > 0 || !checked.ok) throw new DraftProblemsError(problems);
  return checked.workflow;
}

/** Edits keyed by any name (an API body): the known fields, and a problem for each other name. */
export function knownFields(fields: Record<string, string>): { edits: DraftEdits; problems: string[] } {
  const edits: DraftEdits = {};
  const problems: string[] = [];
  for (const [name, value] of Object.entries(fields))
    if ((DRAFT_FIELDS as readonly string[]).includes(name)) edits[name as DraftField] = value;
    else problems.push(`"${name}" is not a field you can edit here (${FIELD_HELP})`);
  if (problems.length === 0 && Object.keys(edits).length === 0)
    problems.push(`nothing to change: give at least one field (${FIELD_HELP})`);
  return { edits, problems };
}

function triggerOf(value: string): Workflow['trigger'] | null {
  const lower = value.toLowerCase();
  if (lower === 'manual' || lower === 'none' || lower === 'by hand') return { manual: true };
  if (lower === 'webhook') return { webhook: true };
  if (/^(cron|rate)\(/.test(value)) return { schedule: value }; // the check says what is wrong with it
  const schedule = scheduleOf(value);
  return schedule === null ? null : { schedule };
}

/** An inline mapping changes the named parts of the source (all of it with another `type`); a path is a Maildir. */
function sourceOf(current: Workflow['source'], value: string): Record<string, unknown> | string {
  if (value.startsWith('/')) return { type: 'maildir', path: value };
  const doc = parseDocument(value.startsWith('{') ? value : `{ ${value} }`);
  const data: unknown = doc.errors.length > 0 ? null : doc.toJS();
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    return `"${value}" is not a source: write the parts to change, like { host: imap.fastmail.com, mailbox: INBOX }, or a Maildir's absolute path`;
  const changes = data as Record<string, unknown>;
  if (changes.type !== undefined && changes.type !== current.type) return changes;
  return { ...current, ...changes };
}

/** `0.8`, `80%`, or `default` (the workspace's own): undefined for the default, null for nonsense. */
function thresholdOf(value: string): number | null | undefined {
  if (/^(default|none)$/i.test(value)) return undefined;
  const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(value);
  if (percent) return Number(percent[1]) / 100;
  if (!/^\d*\.?\d+$/.test(value)) return null;
  return Number(value);
}

function listOf(value: string): string[] {
  return unique(
    value
      .split(/[,\s]+/)
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}

/** A workflow check's path in the words of these fields: `trigger.schedule: …` → `schedule: …`. */
function inFieldWords(problem: string): string {
  return problem
    .replace(/^trigger(\.schedule)?: /, 'schedule: ')
    .replace(/^confidence_threshold: /, 'threshold: ')
    .replace(/^human_gate\.options(\.\d+)?: /, 'options: ')
    .replace(/^actions\.\d+\.name: /, 'actions: ');
}
