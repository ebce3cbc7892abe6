import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { App, Aspects, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnElement } from 'aws-cdk-lib';
import { WriteNagSuppressionsToCloudFormationAspect } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { FUNCTION_SPECS, type FunctionName, PROJECT_ROOT } from '../../lib/functions.ts';
import { HandoffStack, type HandoffStackProps } from '../../lib/handoff-stack.ts';

/** The feature flags `cdk synth` gets from cdk.json, so tests build what the CLI builds. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return cdkJson.context;
}

/** A temporary cloud-assembly directory under TMPDIR; remove it with `rmSync(dir, { recursive: true })`. */
export function tempOutdir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'handoff-cdk-test-'));
}

export interface Built {
  app: App;
  stack: HandoffStack;
  template: Template;
  /** The logical id of a construct's CloudFormation resource (its default child). */
  idOf(construct: IConstruct): string;
  /** The logical id of function `name`, and of its role. */
  fn(name: FunctionName): { id: string; roleId: string };
  cleanup(): void;
}

/**
 * Builds the stack as bin/app.ts does (same context, same parameters shape) into a
 * temporary outdir. `bundle: false` (the default) skips esbuild through CDK's own
 * `aws:cdk:bundling-stacks` context, as `cdk synth --exclusively` does for other stacks:
 * the template is identical except for the asset hashes.
 */
export function buildStack(
  props: Partial<HandoffStackProps> = {},
  /**
   * `outdir`: synthesize into this cloud assembly (one that another build of the stack used):
   * CDK stages a bundle once per assembly and process, so a second variant reuses the first's
   * bundles (they do not depend on the stack's parameters) and only its template differs.
   */
  opts: { bundle?: boolean; nagMetadata?: boolean; outdir?: string } = {},
): Built {
  const outdir = opts.outdir ?? tempOutdir();
  const app = new App({
    outdir,
    context: { ...cdkJsonContext(), ...(opts.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }) },
  });
  const stage = props.stage ?? 'dev';
  const stack = new HandoffStack(app, 'HandoffStack', {
    stage,
    modelProvider: 'bedrock',
    stackName: `handoff-${stage}`,
    ...props,
  });
  // As bin/app.ts's `writeSuppressionsToCloudFormation`: acknowledgements land in the template.
  if (opts.nagMetadata) Aspects.of(app).add(new WriteNagSuppressionsToCloudFormationAspect());
  const template = Template.fromStack(stack);
  const idOf = (construct: IConstruct): string => {
    const child = construct.node.defaultChild as CfnElement | undefined;
    if (!child) throw new Error(`${construct.node.path} has no CloudFormation resource`);
    return Stack.of(construct).resolve(child.logicalId) as string;
  };
  const fn = (name: FunctionName) => {
    const spec = FUNCTION_SPECS[name];
    return {
      id: idOf(stack.node.findChild(spec.id)),
      roleId: idOf(stack.node.findChild(`${spec.id}Role`)),
    };
  };
  return { app, stack, template, idOf, fn, cleanup: () => rmSync(outdir, { recursive: true, force: true }) };
}

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

/** Every statement of every AWS::IAM::Policy attached to the role with logical id `roleId`. */
export function statementsOfRole(template: Template, roleId: string): Statement[] {
  const policies = template.findResources('AWS::IAM::Policy') as Record<
    string,
    { Properties: { Roles?: { Ref: string }[]; PolicyDocument: { Statement: Statement[] } } }
  >;
  return Object.values(policies)
    .filter((p) => (p.Properties.Roles ?? []).some((r) => r.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}

export function actionsOf(statements: Statement[]): string[] {
  return statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
}

/** Logical ids of the roles whose policies allow `action` (optionally on a resource matching `onResource`). */
export function rolesAllowing(
  template: Template,
  action: string | RegExp,
  onResource?: (resource: unknown) => boolean,
): string[] {
  const roles = Object.keys(template.findResources('AWS::IAM::Role'));
  return roles.filter((roleId) =>
    statementsOfRole(template, roleId).some((s) => {
      const actions = Array.isArray(s.Action) ? s.Action : [s.Action];
      const resources = Array.isArray(s.Resource) ? (s.Resource as unknown[]) : [s.Resource];
      const matches = actions.some((a) => (typeof action === 'string' ? a === action : action.test(a)));
      return s.Effect === 'Allow' && matches && (!onResource || resources.some(onResource));
    }),
  );
}
