/**
 * The chat's confirmation card over the API (bearer key), thin over what the Chat page's
 * buttons call (chat-service.ts, card-actions.ts): `POST /api/chats/:id/confirm` and `/cancel`
 * with `{"confirm_id"}`, `/draft` with `{"fields": {"schedule": "every weekday at 9", …}}` or
 * `{"workflow": "<YAML>"}`, `/credential` with `{"name","value"}` (write-only). Each answers as
 * a message does: `{"chat_id","text","workflow_id"?,"run_id"?,"confirm"?}`.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { getChat } from '../chats/chat-repository.ts';
import type { RouteSink } from './lazy-routes.ts';
import type { WebDeps } from './web-deps.ts';

const assistant = () => import('../assistant/chat-service.ts');
const cardActions = () => import('../assistant/card-actions.ts');
const draftFields = () => import('../assistant/draft-fields.ts');

const ConfirmBody = z.object({ confirm_id: z.string().min(1) });
const CredentialBody = z.object({ name: z.string(), value: z.string() });
const DraftBody = z.union([
  z.object({ fields: z.record(z.string(), z.string()) }).strict(),
  z.object({ workflow: z.string() }).strict(),
]);

/** The body as `schema` reads it, or 400 with the shape it takes. */
async function bodyOf<T>(c: Context, schema: z.ZodType<T>, shape: string): Promise<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(await c.req.text());
  } catch {
    raw = undefined;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new HTTPException(400, { message: `body must be JSON like ${shape}` });
  return parsed.data;
}

/** The handlers (loaded with the first card request: chat-api-routes.ts); an unknown chat is 404 before the body is read. */
export function registerCardHandlers(app: RouteSink, web: WebDeps): void {
  const chatOf = async (c: Context) => (await getChat(web.engine.store, c.req.param('id') ?? '')).id;

  app.post('/api/chats/:id/confirm', async (c) => {
    const id = await chatOf(c);
    const { confirm_id } = await bodyOf(c, ConfirmBody, '{"confirm_id": "…"} (GET /api/chats/:id has it)');
    return c.json(await (await assistant()).confirmStep(web.engine, id, confirm_id));
  });

  app.post('/api/chats/:id/cancel', async (c) => {
    const id = await chatOf(c);
    const { confirm_id } = await bodyOf(c, ConfirmBody, '{"confirm_id": "…"} (GET /api/chats/:id has it)');
    return c.json(await (await cardActions()).cancelStep(web.engine, id, confirm_id));
  });

  app.post('/api/chats/:id/draft', async (c) => {
    const id = await chatOf(c);
    const body = await bodyOf(
      c,
      DraftBody,
      '{"fields": {"schedule": "every weekday at 9", "threshold": "0.8"}} or {"workflow": "<YAML>"}',
    );
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
  });

  // Write-only: the value is sealed in the credential store; no answer or turn carries it.
  app.post('/api/chats/:id/credential', async (c) => {
    const id = await chatOf(c);
    const { name, value } = await bodyOf(c, CredentialBody, '{"name": "MAIL_PASSWORD", "value": "…"}');
    return c.json(await (await cardActions()).setDraftCredential(web.engine, id, name, value));
  });
}
