/** Where the demo inbox lives, and which workflow reads it (light: no mail parsing loaded). */
import path from 'node:path';
import type { Workflow } from '../../workflows/schema.ts';

/** Where `handoff start` puts the demo inbox. */
export function demoMaildirPath(stateDir: string): string {
  return path.join(stateDir, 'demo', 'Maildir');
}

/** The workflow that reads the demo inbox, if the workspace has one. */
export function demoWorkflowOf(workflows: readonly Workflow[], stateDir: string): Workflow | undefined {
  const demo = demoMaildirPath(stateDir);
  return workflows.find((w) => w.source.type === 'maildir' && path.resolve(w.source.path) === demo);
}
