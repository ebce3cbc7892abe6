/**
 * What the platform routes return (profile, skills, agents, the workspace file), as zod
 * schemas; api-responses.ts gathers them by name for the OpenAPI document.
 */
import { z } from 'zod';
import { ProfileSchema } from '../profile/profile.ts';

export const Profile = ProfileSchema.pick({
  name: true,
  time_zone: true,
  notify_channel: true,
  quiet_hours: true,
  updated_at: true,
}).meta({ id: 'Profile' });

export const Saved = z
  .object({
    name: z.string(),
    version: z.number().int(),
    created: z
      .boolean()
      .meta({ description: 'False: the same content as the latest version, nothing saved.' }),
  })
  .meta({ id: 'Saved' });

export const SkillSummary = z
  .object({
    name: z.string(),
    version: z.number().int(),
    created_at: z.string(),
    used_by: z.array(z.string()),
  })
  .meta({ id: 'SkillSummary' });

export const Skill = z
  .object({
    name: z.string(),
    version: z.number().int(),
    created_at: z.string(),
    body: z.string().meta({ description: 'Markdown.' }),
    versions: z.array(z.number().int()),
  })
  .meta({ id: 'Skill' });

export const Agent = z
  .object({
    name: z.string(),
    version: z.number().int(),
    created_at: z.string().optional(),
    description: z.string(),
    instructions: z.string(),
    model: z.enum(['primary', 'fallback']),
    tools: z.array(z.string()).optional(),
    actions: z.array(z.string()).optional(),
    skills: z.array(z.string()).optional(),
    used_by: z.array(z.string()).optional(),
    versions: z.array(z.number().int()).optional(),
  })
  .meta({ id: 'Agent' });

export const ApplyResult = z
  .object({
    applied: z.boolean().meta({ description: 'False on a dry run.' }),
    changes: z.array(
      z.object({
        kind: z.enum(['profile', 'settings', 'integration', 'skill', 'agent', 'workflow', 'rule']),
        name: z.string(),
        change: z.enum(['add', 'update']),
        fields: z.array(z.string()).optional(),
      }),
    ),
  })
  .meta({ id: 'ApplyResult' });

/** Every problem found, one line each; nothing was changed. */
export const Problems = z
  .object({
    error: z.string(),
    problems: z.array(z.string()).meta({
      description: 'One line per problem (a workspace file: `workspace.yml: <path>: <what is wrong>`).',
    }),
  })
  .meta({ id: 'ApplyProblems' });

export const PLATFORM_RESPONSES = {
  Profile,
  Saved,
  SkillSummaries: z.array(SkillSummary),
  Skill,
  Agents: z.array(Agent),
  Agent,
  ApplyResult,
  Problems,
};
