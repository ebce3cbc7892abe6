/**
 * A function's bindings follow its code: every module its bundle reaches (esbuild's
 * metafile, lazy chunks included) is read for what it says it needs (`needs(...)`,
 * shared/config/needs.ts), and the function's bindings in shared/aws/deployment.ts must
 * cover each need and hold nothing that no reached module needs. Run on every bundle the
 * stack makes (lib/bundle-cli.ts), so a new call on a function's path fails the synth,
 * naming the function, the binding and the module, instead of a deployment.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseSync } from '@swc/core';
import type { Metafile } from 'esbuild';
import { NEEDS, type Need } from '../shared/config/needs.ts';
import {
  type Binding,
  FUNCTION_BINDINGS,
  type LambdaFunction,
  UNBOUND_NEEDS,
} from '../shared/aws/deployment.ts';

const NEED_SET = new Set<string>(NEEDS);
const UNBOUND = new Set<string>(UNBOUND_NEEDS);

/** A binding that stands for a need it narrows: `tableRead` is the table for a function that only reads. */
const NARROWS: Partial<Record<Binding, Need>> = { tableRead: 'table' };

/** An swc AST node, as far as this check reads it. */
interface Node {
  type?: string;
  callee?: { type?: string; value?: string };
  arguments?: { expression: { type?: string; value?: unknown; span?: { start: number; end: number } } }[];
}

/** The needs a module's source declares: the string arguments of its `needs(...)` calls (comments and strings are not calls). */
export function declaredNeeds(source: string, file = 'module.ts'): Need[] {
  if (!source.includes('needs(')) return [];
  const found: Need[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const v of value) visit(v);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const node = value as Node;
    if (node.type === 'CallExpression' && node.callee?.type === 'Identifier' && node.callee.value === 'needs')
      for (const { expression: arg } of node.arguments ?? []) {
        if (arg.type !== 'StringLiteral' || typeof arg.value !== 'string' || !NEED_SET.has(arg.value))
          throw new Error(
            `${file}: needs() takes the names in shared/config/needs.ts as string literals, got ${typeof arg.value === 'string' ? `'${arg.value}'` : (arg.type ?? 'something else')}`,
          );
        found.push(arg.value as Need);
      }
    for (const child of Object.values(value)) visit(child);
  };
  visit(parseSync(source, { syntax: 'typescript', tsx: file.endsWith('x') }).body);
  return found;
}

/** Each need the bundle reaches, with the project modules that declare it (node_modules never do). */
export function reachedNeeds(metafile: Metafile, root: string): Map<Need, string[]> {
  const reached = new Map<Need, string[]>();
  for (const file of Object.keys(metafile.inputs)) {
    if (file.includes('node_modules/') || !/\.[cm]?tsx?$/.test(file)) continue;
    const source = readFileSync(path.resolve(root, file), 'utf8');
    for (const need of declaredNeeds(source, file)) reached.set(need, [...(reached.get(need) ?? []), file]);
  }
  return reached;
}

/** What is wrong with `fn`'s bindings against the needs its bundle reaches: one line each, none when they agree. */
export function bindingProblems(
  fn: LambdaFunction,
  reached: ReadonlyMap<Need, readonly string[]>,
  bound: readonly Binding[] = FUNCTION_BINDINGS[fn],
): string[] {
  const covers = (b: Binding): Need => NARROWS[b] ?? (b as Need);
  const problems: string[] = [];
  for (const [need, modules] of reached)
    if (UNBOUND.has(need))
      problems.push(
        `${fn} reaches ${modules.join(', ')}, which needs ${need}, and the stack binds no function to it: keep it out of the Lambda bundles (a stub in lib/bundle-stubs/aliases.ts)`,
      );
    else if (!bound.some((b) => covers(b) === need))
      problems.push(
        `${fn} reaches ${modules.join(', ')}, which needs ${need}, but is not bound to it: add '${need}' to FUNCTION_BINDINGS.${fn} (shared/aws/deployment.ts)`,
      );
  for (const binding of bound)
    if (!reached.has(covers(binding)))
      problems.push(
        `${fn} is bound to ${binding}, but nothing its bundle reaches needs it: remove it from FUNCTION_BINDINGS.${fn} (least privilege)`,
      );
  return problems;
}

/** Whether `name` is a function of the stack (one the binding table knows). */
export function isLambdaFunction(name: string): name is LambdaFunction {
  return Object.hasOwn(FUNCTION_BINDINGS, name);
}
