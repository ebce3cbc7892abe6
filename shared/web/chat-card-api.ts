/**
 * The chat's confirmation card over the API (bearer key), thin over what the Chat page's
 * buttons call (chat-service.ts, card-actions.ts): `POST /api/chats/:id/confirm` and `/cancel`
 * with `{"confirm_id"}`, `/draft` with `{"fields": {"schedule": "every weekday at 9", …}}` or
 * `{"workflow": "<YAML>"}`, `/credential` with `{"name","value"}` (write-only). Each answers as
 * a message does: `{"chat_id","text","workflow_id"?,"run_id"?,"confirm"?}`.
 */
import { z } from 'zod';
import { defineRoute, serveRoute, type Reply } from './api-route.ts';
import { chatFound, chatId } from './chat-api.ts';
import { assistant } from './chat-api-routes.ts';
import type { RouteSink } from './lazy-routes.ts';
import type { WebDeps } from './web-deps.ts';

const cardActions = () => import('../assistant/card-actions.ts');
const draftFields = () => import('../assistant/draft-fields.ts');

const CONFIRM_SHAPE = '{"confirm_id": "…"} (GET /api/chats/:id has it)';
const ConfirmBody = z
  .object({ confirm_id: z.string().min(1).meta({ description: 'The waiting step’s id (`confirm.id`).' }) })
  .meta({ id: 'ChatConfirmId' });
const CREDENTIAL_SHAPE = '{"name": "MAIL_PASSWORD", "value": "…"}';
const CredentialBody = z
  .object({ name: z.string(), value: z.string().meta({ writeOnly: true }) })
  .meta({ id: 'ChatCredential' });
const DRAFT_SHAPE =
  '{"fields": {"schedule": "every weekday at 9", "threshold": "0.8"}} or {"workflow": "<YAML>"}';
const DraftBody = z
  .union([
    z
      .object({
        fields: z.record(z.string(), z.string()).meta({
          description:
            'Parts to change, each in words: schedule ("every weekday at 9", cron(…), rate(…), manual, webhook), threshold (0.8 or 80%), actions and options ("archive, flag"), source (the parts to change, { host: …, mailbox: … }, or a Maildir path), name, instructions.',
        }),
      })
      .strict(),
    z.object({ workflow: z.string().meta({ description: 'The whole draft as YAML or JSON.' }) }).strict(),
  ])
  .meta({ id: 'ChatDraftEdit' });

/** A card route: a JSON body in (validated after the chat is found), the reply as a message's out. */
function cardRoute<B extends z.ZodType>(
  name: string,
  operationId: string,
  summary: string,
  schema: B,
  shape: string,
  unprocessable: Reply | 'Unprocessable' = 'Unprocessable',
) {
  return defineRoute({
    method: 'post',
    path: `/api/chats/{id}/${name}`,
    operationId,
    summary,
    params: chatId,
    body: { schema, shape, invalid: `body must be JSON like ${shape}` },
    responses: {
      200: {
        description: 'The assistant’s reply, with the card again when a save still waits.',
        schema: 'ChatReply',
      },
      400: 'BadRequest',
      401: 'Unauthorized',
      404: 'NotFound',
      413: 'TooLarge',
      422: unprocessable,
    },
  });
}

export const confirmRoute = cardRoute(
  'confirm',
  'confirmChatStep',
  'The card’s Yes: carry out the waiting step (save, delete, run, …)',
  ConfirmBody,
  CONFIRM_SHAPE,
);
export const cancelRoute = cardRoute(
  'cancel',
  'cancelChatStep',
  'The card’s No: drop the waiting step; a draft is kept',
  ConfirmBody,
  CONFIRM_SHAPE,
);
export const draftRoute = cardRoute(
  'draft',
  'editChatDraft',
  'The card’s Edit: change the draft field by field, or replace it with a workflow text; asks to save again',
  DraftBody,
  DRAFT_SHAPE,
  { description: 'Every problem found; nothing changed.', schema: 'Problems' },
);
export const credentialRoute = cardRoute(
  'credential',
  'setChatCredential',
  'The card’s credential field: set a credential the draft needs (write-only); resumes what waited for it',
  CredentialBody,
  CREDENTIAL_SHAPE,
);

export const CARD_ROUTES = [confirmRoute, cancelRoute, draftRoute, credentialRoute];

/** The handlers (loaded with the first card request: api-modules.ts); an unknown chat is 404 before the body is read. */
export function registerCardHandlers(app: RouteSink, web: WebDeps): void {
  const found = chatFound(web);

  serveRoute(
    app,
    confirmRoute,
    async (c, { params, body }) =>
      c.json(await (await assistant()).confirmStep(web.engine, params.id, body.confirm_id)),
    found,
  );

  serveRoute(
    app,
    cancelRoute,
    async (c, { params, body }) =>
      c.json(await (await cardActions()).cancelStep(web.engine, params.id, body.confirm_id)),
    found,
  );

  serveRoute(
    app,
    draftRoute,
    async (c, { params: { id }, body }) => {
      const { DraftProblemsError, knownFields } = await draftFields();
      const actions = await cardActions();
      if ('workflow' in body) return c.json(await actions.editDraft(web.engine, id, body.workflow));
      const { edits, problems } = knownFields(body.fields);
      try {
        return c.json(await actions.editDraftFields(web.engine, id, edits, problems));
      } catch (error) {
        if (error instanceof DraftProblemsError)
          return c.json({ error: error.message, problems: error.problems }, 422);
        throw error;
      }
    },
    found,
  );

  // Write-only: the value is sealed in the credential store; no answer or turn carries it.
  serveRoute(
    app,
    credentialRoute,
    async (c, { params, body: { name, value } }) =>
      c.json(await (await cardActions()).setDraftCredential(web.engine, params.id, name, value)),
    found,
  );
}
