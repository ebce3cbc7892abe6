/**
 * What a run reads of a workflow: its named agents turned into specialists, and the text
 * of every skill it (or a specialist) includes, at the versions the run pinned when it
 * was created — so a run resumed in another process reads exactly what it started with.
 */
import { agents } from '../agents/definitions.ts';
import type { LibraryPin } from '../records/runs.ts';
import { skills, type IncludedSkill } from '../skills/skills.ts';
import type { Store } from '../store/store.ts';
import { SKIP, type Workflow, type WorkflowSpecialist } from './schema.ts';

export interface ResolvedWorkflow {
  /** The workflow with `agents:` expanded into `specialists:`. */
  workflow: Workflow;
  /** Each included skill's text, by name. */
  skills: ReadonlyMap<string, IncludedSkill>;
  /** The versions read: the run records them. */
  pins: { skills: LibraryPin[]; agents: LibraryPin[] };
}

/** Resolves the workflow's agents and skills, at `pinned` versions where given, else the latest. */
export async function resolveWorkflow(
  store: Store,
  workflow: Workflow,
  pinned: { skills: readonly LibraryPin[]; agents: readonly LibraryPin[] } = { skills: [], agents: [] },
): Promise<ResolvedWorkflow> {
  const pinOf = (pins: readonly LibraryPin[], name: string) => pins.find((p) => p.name === name)?.version;
  const declared = new Set(workflow.actions.map((a) => a.name));
  const agentPins: LibraryPin[] = [];
  const fromAgents: WorkflowSpecialist[] = [];
  for (const name of workflow.agents ?? []) {
    const agent = await agents.get(store, name, pinOf(pinned.agents, name));
    agentPins.push({ name, version: agent.version });
    const c = agent.content;
    const actions = c.actions?.filter((a) => a === SKIP || declared.has(a));
    fromAgents.push({
      name,
      description: c.description,
      instructions: c.instructions,
      model: c.model,
      tools: c.tools,
      skills: c.skills,
      ...(actions ? { actions: actions.length > 0 ? actions : [SKIP] } : {}),
    });
  }
  const specialists = [...(workflow.specialists ?? []), ...fromAgents];
  const names = [...new Set([...(workflow.skills ?? []), ...specialists.flatMap((s) => s.skills ?? [])])];
  const included = new Map<string, IncludedSkill>();
  for (const name of names) {
    const skill = await skills.get(store, name, pinOf(pinned.skills, name));
    included.set(name, { name, version: skill.version, body: skill.content.body });
  }
  const { agents: _named, ...rest } = workflow;
  return {
    workflow: specialists.length > 0 ? { ...rest, specialists } : rest,
    skills: included,
    pins: {
      skills: [...included.values()].map(({ name, version }) => ({ name, version })),
      agents: agentPins,
    },
  };
}

/** The skills named, in order, with their text (a name missing from `included` is left out). */
export function skillTexts(
  names: readonly string[] | undefined,
  included: ReadonlyMap<string, IncludedSkill> | undefined,
): IncludedSkill[] {
  return (names ?? []).flatMap((n) => {
    const skill = included?.get(n);
    return skill ? [skill] : [];
  });
}
