/**
 * Markers the executor's and specialists' prompts carry for a model that reads them literally
 * (the offline model). Kept apart from the model so a prompt does not load it.
 */
export const INSTRUCTIONS_MARKER = 'Workflow instructions:';
export const ACTIONS_MARKER = 'Actions you may propose:';
/** One line per specialist in the executor's prompt: `Specialist: <name> — <description>`. */
export const SPECIALIST_MARKER = 'Specialist:';
/** The line of a handed-over item in a specialist's input: `Item: <compact view as JSON>`. */
export const HANDED_ITEM_MARKER = 'Item:';
/** The message a reply is written to, as JSON facts: `Reply to: {"sender_name", "sender", "subject", "text", "me"}`. */
export const REPLY_MARKER = 'Reply to:';
/** The line of the assistant's prompts that carries the chat's draft workflow: `Draft workflow: <config as JSON>`. */
export const DRAFT_MARKER = 'Draft workflow:';
