import { z } from 'zod';

/** The words an action carries (see actions/words.ts): a reply's body, a ticket's title and body. */
export const WordsSchema = z.object({
  /** The action these words are for. */
  action: z.string(),
  /** A ticket's title; null for an action with a body only. */
  title: z.string().nullable().default(null),
  body: z.string(),
  /** Who wrote them: the configured model, the offline model, a template from the item, or the person. */
  by: z.enum(['model', 'offline', 'template', 'person']),
});
export type Words = z.infer<typeof WordsSchema>;
