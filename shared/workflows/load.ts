/**
 * Reading workflow files. Every refusal is one line a person can act on:
 * `<file>: <field path>: <what is wrong>`.
 */
import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { InvalidInputError, errorMessage } from '../errors/index.ts';
import { MAX_WORKFLOW_BYTES, tooLargeMessage } from './limits.ts';
import { WorkflowSchema, type Workflow } from './schema.ts';

export { MAX_WORKFLOW_BYTES, tooLargeMessage };

/** A workflow text checked: the workflow, or every problem found, each one line without the file name. */
export type WorkflowCheck = { ok: true; workflow: Workflow } | { ok: false; problems: string[] };

/**
 * Parses and validates a workflow from YAML (.yaml/.yml) or JSON (.json); other
 * extensions are detected by content. Throws InvalidInputError with one line that lists
 * every problem. The size is checked before any parsing.
 */
export function parseWorkflow(text: string, fileName: string): Workflow {
  const checked = checkWorkflowText(text, fileName);
  if (checked.ok) return checked.workflow;
  throw new InvalidInputError(`${fileName}: ${checked.problems.join('; ')}`);
}

/** Like {@link parseWorkflow}, but returns every problem as a list (the web editor shows them all). */
export function checkWorkflowText(text: string, fileName: string): WorkflowCheck {
  const problems = (...list: string[]): WorkflowCheck => ({ ok: false, problems: list });
  if (text.length > MAX_WORKFLOW_BYTES || Buffer.byteLength(text, 'utf8') > MAX_WORKFLOW_BYTES)
    return problems(tooLargeMessage(fileName).replace(`${fileName}: `, ''));
  const ext = extname(fileName).toLowerCase();
  const asJson = ext === '.json' || (ext !== '.yaml' && ext !== '.yml' && /^\s*[{[]/.test(text));
  let data: unknown;
  try {
    data = asJson ? parseJson(text, syntaxFail) : parseYaml(text, syntaxFail);
  } catch (error) {
    if (error instanceof SyntaxProblem) return problems(error.message);
    throw error;
  }
  if (data === null || data === undefined) return problems('file is empty');
  if (typeof data !== 'object' || Array.isArray(data))
    return problems(`must be a mapping of fields (id, name, ...), got ${describe(data)}`);
  const result = WorkflowSchema.safeParse(data);
  if (result.success) return { ok: true, workflow: result.data };
  return problems(...result.error.issues.map((issue) => formatIssue(issue, data)));
}

/** A text that is not YAML or JSON at all: one problem, nothing further to check. */
class SyntaxProblem extends Error {}
const syntaxFail = (msg: string): never => {
  throw new SyntaxProblem(msg);
};

/**
 * Reads and validates a workflow file; a missing, too large or bad file throws
 * InvalidInputError. A file over MAX_WORKFLOW_BYTES is refused before it is read.
 */
export async function loadWorkflowFile(filePath: string): Promise<Workflow> {
  let text: string;
  try {
    const file = await open(filePath, 'r');
    try {
      if ((await file.stat()).size > MAX_WORKFLOW_BYTES)
        throw new InvalidInputError(tooLargeMessage(filePath));
      text = await file.readFile('utf8');
    } finally {
      await file.close();
    }
  } catch (err) {
    if (err instanceof InvalidInputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'file not found'
        : code === 'EISDIR'
          ? 'is a directory, not a file'
          : code === 'EACCES'
            ? 'cannot read the file (permission denied)'
            : `cannot read the file (${code ?? String(err)})`;
    throw new InvalidInputError(`${filePath}: ${why}`, { cause: err });
  }
  return parseWorkflow(text, filePath);
}

function parseYaml(text: string, fail: (msg: string) => never): unknown {
  const doc = parseDocument(text, { prettyErrors: false });
  const err = doc.errors[0];
  if (err) {
    const reason = (err.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '').trim();
    const line = err.linePos?.[0]?.line ?? lineOf(text, err.pos[0]);
    return fail(`not valid YAML: ${reason} (line ${line})`);
  }
  try {
    return doc.toJS(); // throws on alias abuse ("Excessive alias count ...")
  } catch (err) {
    const reason = errorMessage(err).split('\n')[0] ?? '';
    return fail(`not valid YAML: ${reason.replace(/\.$/, '')}`);
  }
}

function parseJson(text: string, fail: (msg: string) => never): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const msg = errorMessage(err);
    const pos = /position (\d+)/.exec(msg);
    const reason = msg.replace(/ in JSON at position \d+.*$/, '').replace(/\s*\(line \d+ column \d+\)$/, '');
    return fail(`not valid JSON: ${reason}${pos ? ` (line ${lineOf(text, Number(pos[1]))})` : ''}`);
  }
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

function formatIssue(issue: z.core.$ZodIssue | undefined, data: unknown): string {
  if (!issue) return 'invalid workflow';
  const path = issue.path.map(String);
  const at = (p: string[]): string => (p.length > 0 ? `${p.join('.')}: ` : '');
  const value = valueAt(data, issue.path);
  if (issue.code === 'unrecognized_keys') {
    const allowed = allowedKeys(issue.path);
    const hint = allowed ? ` (allowed: ${allowed.join(', ')})` : '';
    return issue.keys.map((k) => `${at([...path, k])}unknown field${hint}`).join('; ');
  }
  if (value === undefined && issue.code === 'invalid_type') return `${at(path)}is required`;
  const shown =
    value === undefined ||
    (value !== null && typeof value === 'object') ||
    issue.message.includes(String(value));
  const got = shown ? '' : ` (got ${describe(value)})`;
  return `${at(path)}${issue.message}${got}`;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = data;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** The keys an object in the schema accepts, found by walking the schema along the path. */
function allowedKeys(path: readonly PropertyKey[]): string[] | null {
  let s: z.ZodType = WorkflowSchema;
  for (const key of [...path, null]) {
    while (s instanceof z.ZodOptional || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
    if (key === null) break;
    if (s instanceof z.ZodObject) s = (s.shape as Record<string, z.ZodType>)[String(key)] ?? z.never();
    else if (s instanceof z.ZodArray) s = s.element as z.ZodType;
    else return null;
  }
  return s instanceof z.ZodObject ? Object.keys(s.shape) : null;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  const s = typeof v === 'string' ? JSON.stringify(v) : String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
