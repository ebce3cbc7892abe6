import { z } from 'zod';

/**
 * The fields the gate reads from each call of a gated tool: spread them into the tool's
 * input schema (`z.object({ ...gateFields, title: z.string() })`) so the model reports how
 * sure it is. A missing or malformed confidence counts as 0: the call is asked about.
 */
export const gateFields = {
  confidence: z
    .number()
    .min(0)
    .max(1)
    .describe('How sure you are that the person wants this, from 0 to 1. Do not inflate it to avoid asking.'),
  reasoning: z.string().describe('Why: shown to the person verbatim when the call is asked about.'),
  force_interrupt: z.boolean().optional().describe('true to ask the person whatever your confidence.'),
};
