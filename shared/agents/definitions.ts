/**
 * Agent definitions: named, versioned specialists (collection `agents`) — instructions,
 * model tier, tools, allowed actions and skills — that a workflow names in `agents:`
 * instead of repeating them inline under `specialists:`.
 */
import { z } from 'zod';
import { InvalidInputError } from '../errors/index.ts';
import { VersionedLibrary, type Versioned } from '../library/versioned.ts';
import type { Store } from '../store/store.ts';
import { SkillNameSchema, skills } from '../skills/skills.ts';

/** An agent's name is the intent the executor routes by, so it is snake_case like a specialist's. */
export const AGENT_NAME = /^[a-z][a-z0-9_]{0,39}$/;
const NAME_RULE =
  'must be snake_case (lowercase letters, digits, _; starting with a letter), at most 40 characters';

export const AgentNameSchema = z
  .string({ error: 'must be an agent name' })
  .regex(AGENT_NAME, { error: NAME_RULE });

const Text = z.string({ error: 'must be a string' }).trim().min(1, { error: 'must not be empty' });

/** What an agent file (YAML or JSON) holds. */
export const AgentContentSchema = z.strictObject({
  /** What the executor reads to decide which items belong to this agent. */
  description: Text,
  /** How it decides the items it is handed. */
  instructions: Text,
  /** `primary` (default) or `fallback`: HANDOFF_MODEL_ID or HANDOFF_FALLBACK_MODEL_ID. */
  model: z.enum(['primary', 'fallback'], { error: 'must be "primary" or "fallback"' }).default('primary'),
  /** Registry entries whose read-only tools it reads with (see `handoff integrations`). */
  tools: z
    .array(
      z.string({ error: 'must be a string' }).regex(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/, {
        error: 'must be the snake_case name of a registry entry (see `handoff integrations`)',
      }),
      { error: 'must be a list' },
    )
    .default([]),
  /** The workflow's declared actions it may propose (skip is always allowed); absent: all. */
  actions: z
    .array(z.string({ error: 'must be a string' }), { error: 'must be a list' })
    .min(1, { error: 'needs at least one action (or leave it out for all of them)' })
    .optional(),
  /** Skills it includes by name. */
  skills: z.array(SkillNameSchema, { error: 'must be a list' }).default([]),
});
export type AgentContent = z.infer<typeof AgentContentSchema>;
export type AgentDefinition = Versioned<AgentContent>;

export const agents = new VersionedLibrary('agents', AgentContentSchema, 'agent');

/** The problems of an agent definition, one line each (`<where>: <field>: <what>`); empty when fine. */
export function agentProblems(where: string, data: unknown): string[] {
  const parsed = AgentContentSchema.safeParse(data);
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => {
    const path = i.path.map(String).join('.');
    if (i.code === 'unrecognized_keys') return `${where}: ${i.keys.join(', ')}: unknown field`;
    return `${where}: ${path ? `${path}: ` : ''}${i.message}`;
  });
}

/** Validates and saves an agent definition (a new version when it changed); its skills must exist. */
export async function saveAgent(
  store: Store,
  name: string,
  data: unknown,
): Promise<{ saved: AgentDefinition; created: boolean }> {
  if (!AGENT_NAME.test(name)) throw new InvalidInputError(`agent name "${name}": ${NAME_RULE}`);
  const problems = agentProblems(`agent ${name}`, data);
  if (problems.length > 0) throw new InvalidInputError(problems.join('; '));
  const content = AgentContentSchema.parse(data);
  const known = new Set((await skills.listLatest(store)).map((s) => s.name));
  const missing = content.skills.find((s) => !known.has(s));
  if (missing)
    throw new InvalidInputError(
      `agent ${name}: skills: no skill "${missing}" (add it first: handoff skills add ${missing} --file FILE)`,
    );
  return agents.save(store, name, content);
}
