/**
 * Skills: named, versioned Markdown instruction snippets (collection `skills`) that a
 * workflow, a specialist or an agent includes by name (`skills: [tone-of-voice]`). A run
 * pins the version it started with, so a resume reads the same text.
 */
import { z } from 'zod';
import { InvalidInputError } from '../errors/index.ts';
import { LIBRARY_NAME, NAME_RULE, VersionedLibrary, type Versioned } from '../library/versioned.ts';
import type { Store } from '../store/store.ts';

/** Largest skill body: it goes into every prompt that includes it. */
export const MAX_SKILL_BYTES = 16 * 1024;

export const SkillNameSchema = z
  .string({ error: 'must be a skill name' })
  .regex(LIBRARY_NAME, { error: NAME_RULE });

export const SkillContentSchema = z.strictObject({
  body: z
    .string({ error: 'must be Markdown text' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .refine((b) => Buffer.byteLength(b, 'utf8') <= MAX_SKILL_BYTES, {
      error: `must be at most ${MAX_SKILL_BYTES / 1024} KiB`,
    }),
});
export type SkillContent = z.infer<typeof SkillContentSchema>;
export type Skill = Versioned<SkillContent>;

/** The text of one skill version, as a prompt includes it. */
export interface IncludedSkill {
  name: string;
  version: number;
  body: string;
}

export const skills = new VersionedLibrary('skills', SkillContentSchema, 'skill');

/** Validates and saves a skill; a changed body is a new version, the same body changes nothing. */
export async function saveSkill(
  store: Store,
  name: string,
  body: string,
): Promise<{ saved: Skill; created: boolean }> {
  const valid = SkillNameSchema.safeParse(name);
  if (!valid.success) throw new InvalidInputError(`skill name "${name}": ${NAME_RULE}`);
  const content = SkillContentSchema.safeParse({ body });
  if (!content.success)
    throw new InvalidInputError(`skill ${name}: body ${content.error.issues[0]?.message ?? 'is not valid'}`);
  return skills.save(store, name, content.data);
}
