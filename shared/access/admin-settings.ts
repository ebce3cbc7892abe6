/**
 * The settings only an administrator may make: whatever names a program to start, a folder
 * on the host, or an address on this machine or a private network (where a request from the
 * server reaches what the public cannot: the metadata service, a database, another
 * workspace's server). A member (a workspace-scoped key) is refused them with one line per
 * field and nothing is saved; an administrator is never refused. The saves that can carry
 * them (a workflow, an integration entry, the settings, a workspace file) call
 * `refuseAdministratorSettings` before they write.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { HandoffError } from '../errors/index.ts';
import type { ServerEntry } from '../integrations/servers.ts';
import type { Workflow } from '../workflows/schema.ts';
import { currentActor, type Actor } from './actor.ts';
import { reachesPrivateHost } from './addresses.ts';

/** A member tried to make an administrator's setting (HTTP 403); nothing was saved. */
export class AdministratorSettingError extends HandoffError {}

const WHY = "is an administrator's setting: a workspace-scoped API key cannot make it (ask an administrator)";

type Member = Extract<Actor, { kind: 'member' }>;

/** The real path of `p`, resolving the part that exists (so `..` and symbolic links cannot lead out). */
async function realPathOf(p: string): Promise<string> {
  const absolute = path.resolve(p);
  const rest: string[] = [];
  let at = absolute;
  for (;;) {
    try {
      return path.join(await realpath(at), ...rest.reverse());
    } catch {
      const parent = path.dirname(at);
      if (parent === at) return absolute;
      rest.push(path.basename(at));
      at = parent;
    }
  }
}

async function insideRoots(p: string, roots: readonly string[]): Promise<boolean> {
  const real = await realPathOf(p);
  for (const root of roots) {
    const base = await realPathOf(root);
    if (real === base || real.startsWith(base + path.sep)) return true;
  }
  return false;
}

async function addressProblem(field: string, host: string): Promise<string | null> {
  return (await reachesPrivateHost(host))
    ? `${field}: ${host} is on this machine or a private network, and ${WHY}`
    : null;
}

async function urlProblem(field: string, url: string): Promise<string | null> {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return `${field}: ${url} is not a URL`;
  }
  return addressProblem(field, host);
}

/** The administrator's settings in a workflow, one line each naming the field (`prefix` before it). */
export async function workflowProblems(workflow: Workflow, member: Member, prefix = ''): Promise<string[]> {
  const source = workflow.source;
  const problems: (string | null)[] = [];
  if (source.type === 'maildir' && !(await insideRoots(source.path, member.roots)))
    problems.push(
      `${prefix}source.path: ${source.path} is outside this workspace's folder (${member.roots[0] ?? 'none'}); a folder elsewhere on the host ${WHY}`,
    );
  if (source.type === 'imap') {
    problems.push(await addressProblem(`${prefix}source.host`, source.host));
    if (source.oauth?.token_url)
      problems.push(await urlProblem(`${prefix}source.oauth.token_url`, source.oauth.token_url));
  }
  return problems.filter((p): p is string => p !== null);
}

/** The administrator's settings in an integration entry, one line each naming the field. */
export async function entryProblems(entry: ServerEntry, prefix = ''): Promise<string[]> {
  const t = entry.transport;
  switch (t.kind) {
    case 'stdio':
      return [`${prefix}transport: starts a program on the server (${t.command}), and ${WHY}`];
    case 'http': {
      const problem = await urlProblem(`${prefix}transport.url`, t.url);
      return problem ? [problem] : [];
    }
    case 'slack': {
      const problem = await urlProblem(`${prefix}transport.base_url`, t.base_url);
      return problem ? [problem] : [];
    }
    case 'agentcore':
      return [];
  }
}

/** The administrator's settings among the app settings (`ui_base_url` on a private address). */
export async function settingsProblems(
  settings: { ui_base_url?: string | null | undefined },
  prefix = '',
): Promise<string[]> {
  if (!settings.ui_base_url) return [];
  const problem = await urlProblem(`${prefix}ui_base_url`, settings.ui_base_url);
  return problem ? [problem] : [];
}

/**
 * Refuses, as the current actor, what `find` reports: a member gets AdministratorSettingError
 * with every problem on one line; an administrator is never checked.
 */
export async function refuseAdministratorSettings(
  find: (member: Member) => Promise<string[]>,
): Promise<void> {
  const actor = currentActor();
  if (actor.kind === 'administrator') return;
  const problems = await find(actor);
  if (problems.length > 0) throw new AdministratorSettingError(problems.join('; '));
}
