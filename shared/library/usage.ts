/** Who uses a skill or an agent definition; a definition in use cannot be deleted. */
import { agents } from '../agents/definitions.ts';
import { InvalidInputError } from '../errors/index.ts';
import { skills } from '../skills/skills.ts';
import type { Store } from '../store/store.ts';
import { listWorkflows } from '../workflows/repository.ts';

/** Who includes the skill: `workflow <id>` (itself or an inline specialist) and `agent <name>`. */
export async function skillUsers(store: Store, name: string): Promise<string[]> {
  const users: string[] = [];
  for (const w of await listWorkflows(store)) {
    const inSpecialists = (w.specialists ?? []).some((s) => (s.skills ?? []).includes(name));
    if ((w.skills ?? []).includes(name) || inSpecialists) users.push(`workflow ${w.id}`);
  }
  for (const a of await agents.listLatest(store))
    if (a.content.skills.includes(name)) users.push(`agent ${a.name}`);
  return users;
}

/** The workflows that name the agent in `agents:`. */
export async function agentUsers(store: Store, name: string): Promise<string[]> {
  return (await listWorkflows(store))
    .filter((w) => (w.agents ?? []).includes(name))
    .map((w) => `workflow ${w.id}`);
}

/** Deletes every version of a skill; refused, with who uses it, while anything includes it. */
export async function deleteSkill(store: Store, name: string): Promise<number> {
  await skills.get(store, name); // NotFoundError first
  const users = await skillUsers(store, name);
  if (users.length > 0)
    throw new InvalidInputError(
      `skill ${name} is used by ${users.join(', ')}: remove it from ${users.length > 1 ? 'them' : 'it'} first`,
    );
  return skills.delete(store, name);
}

/** Deletes every version of an agent definition; refused while a workflow names it. */
export async function deleteAgent(store: Store, name: string): Promise<number> {
  await agents.get(store, name);
  const users = await agentUsers(store, name);
  if (users.length > 0)
    throw new InvalidInputError(
      `agent ${name} is used by ${users.join(', ')}: remove it from ${users.length > 1 ? 'them' : 'it'} first`,
    );
  return agents.delete(store, name);
}
