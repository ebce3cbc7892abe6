/**
 * Whether a workflow can run as it stands, and if not, why, in words a person can act
 * on: a credential it needs that is not set, a mail folder that is not there. Read before
 * a run is wasted on it; nothing is decrypted (only credential names are listed).
 */
import { pathExists } from '../config/files.ts';
import { credentialsNeeded } from './credentials-needed.ts';
import type { Workflow } from './schema.ts';

export { credentialsNeeded };

/** A credential a workflow needs, and whether it is set in its workspace. */
export interface NeededCredential {
  name: string;
  set: boolean;
}

export interface Readiness {
  credentials: NeededCredential[];
  /** Why it cannot run, one line each; empty when it can. */
  problems: string[];
}

/** Every credential the workflow names: its source's, its webhook secret, its integrations'. */
export function credentialsOf(workflow: Workflow): string[] {
  const secret = workflow.source.type === 'event' && workflow.source.secret ? [workflow.source.secret] : [];
  return [...new Set([...credentialsNeeded(workflow), ...secret])];
}

/** The workflow's readiness against the credentials set (`names`) in its workspace. */
export async function readinessOf(workflow: Workflow, names: ReadonlySet<string>): Promise<Readiness> {
  const credentials = credentialsOf(workflow).map((name) => ({ name, set: names.has(name) }));
  const problems = credentials.filter((c) => !c.set).map((c) => `credential ${c.name} is not set`);
  if (workflow.source.type === 'maildir' && !(await pathExists(workflow.source.path)))
    problems.push(`the mail folder ${workflow.source.path} does not exist`);
  return { credentials, problems };
}
