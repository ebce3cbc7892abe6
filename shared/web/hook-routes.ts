/**
 * `POST /hooks/:workflowId`: a signed webhook starts a run. The body is HMAC-SHA256-signed
 * with the workflow's own secret (an event source's `secret:` credential) or else the
 * workspace's (HANDOFF_WEBHOOK_SECRET for `default`, its WEBHOOK_SECRET credential
 * elsewhere), as `X-Handoff-Signature` or GitHub's own `X-Hub-Signature-256` (same
 * `sha256=<hex>` form); every signature sent must match. An event workflow's body is
 * its items (see shared/sources/event/), stored with the run; any other workflow's is kept as
 * the wake-up's detail.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { CredentialDecryptError } from '../credentials/cipher.ts';
import { NotFoundError, RecordExistsError } from '../errors/index.ts';
import { log } from '../logging/log.ts';
import type { Store } from '../store/store.ts';
import type { Workflow } from '../workflows/schema.ts';
import { webhookRunId } from '../runs/run-repository.ts';
import { createRunFor } from '../runs/start-run.ts';
import { webhookItems } from '../sources/event/webhook-body.ts';
import { getWorkflow } from '../workflows/repository.ts';
import { oneLine } from './run-launcher.ts';
import type { WebDeps } from './web-deps.ts';
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';

const BAD_SIGNATURE =
  'missing or wrong signature (expected X-Handoff-Signature or X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>)';
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;
/** The credential a workspace other than `default` signs its webhooks with (a workflow's own `secret:` wins). */
export const WORKSPACE_WEBHOOK_SECRET = 'WEBHOOK_SECRET';

function fail(c: Context, status: ContentfulStatusCode, message: string): Response {
  return c.json({ error: oneLine(message) }, status);
}

/** Registers the webhook route; `limit` bounds the body. */
export function registerHookRoutes(app: Hono, web: WebDeps, limit: MiddlewareHandler): void {
  app.post('/hooks/:workflowId', limit, async (c) => {
    const engine = web.engine; // the workspace the hook's URL names (`?workspace=`), else default
    const found = await findWorkflow(engine.store, c.req.param('workflowId'));
    const workflow = found instanceof NotFoundError ? null : found;
    const secret = await secretFor(web, workflow);
    if (typeof secret !== 'string') {
      // Told to the server's log only: a caller that has not signed learns no secret's name.
      log.error(`webhook ${c.req.path} refused: ${secret.why}`, workflow ? { workflow_id: workflow.id } : {});
      return fail(c, 401, secret.public);
    }
    const body = new Uint8Array(await c.req.arrayBuffer());
    const signatures = [c.req.header('X-Handoff-Signature'), c.req.header('X-Hub-Signature-256')].filter(
      (s) => s !== undefined,
    );
    if (signatures.length === 0 || !signatures.every((s) => signatureMatches(secret, body, s)))
      return fail(c, 401, BAD_SIGNATURE);
    if (!workflow) throw found; // not found, told only to a caller who signed
    // GitHub names each delivery; a redelivery of it carries the same name.
    const key = c.req.header('Idempotency-Key') ?? c.req.header('X-GitHub-Delivery');
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key))
      return fail(c, 400, 'Idempotency-Key must be 1-200 visible ASCII characters (a UUID is fine)');
    let detail = new TextDecoder().decode(body);
    if (workflow.source.type === 'event') {
      const read = webhookItems(detail, c.req.header('X-GitHub-Event'));
      if (read.kind === 'refused') return fail(c, read.tooLarge ? 413 : 400, read.message);
      if (read.kind === 'ignored') return c.json({ ignored: read.message }, 200);
      detail = read.detail;
    }
    // A caller that retries with the same key gets the run it started, not a second one.
    const runId = key === undefined ? undefined : webhookRunId(engine.workspace, workflow.id, key);
    let run;
    try {
      run = await createRunFor(engine, workflow.id, { kind: 'webhook', detail }, runId);
    } catch (error) {
      if (!(error instanceof RecordExistsError) || !runId) throw error;
      return c.json({ run_id: runId, duplicate: true }, 200);
    }
    web.runner.launch(run, engine);
    return c.json({ run_id: run.id }, 202);
  });
}

async function findWorkflow(store: Store, id: string): Promise<Workflow | NotFoundError> {
  try {
    return await getWorkflow(store, id);
  } catch (error) {
    if (error instanceof NotFoundError) return error;
    throw error;
  }
}

/** Why a webhook cannot be checked: `public` for its caller (no names), `why` for the server's log. */
interface NoSecret {
  public: string;
  why: string;
}

/**
 * The key a workflow's webhook is signed with: its own (`source.secret`, a credential) when
 * it names one; else, in the default workspace, the server's HANDOFF_WEBHOOK_SECRET, and in
 * any other, the workspace's WEBHOOK_SECRET credential. An unknown workflow is checked like
 * one without a secret, so a wrong signature never learns which workflows exist.
 */
async function secretFor(web: WebDeps, workflow: Workflow | null): Promise<string | NoSecret> {
  const own = workflow?.source.type === 'event' ? workflow.source.secret : undefined;
  const unusable = "webhooks are not set up for this workflow: see the server's log";
  if (!own && web.engine.workspace === DEFAULT_WORKSPACE) {
    const disabled = 'webhooks are disabled: set HANDOFF_WEBHOOK_SECRET on the server';
    return web.env.HANDOFF_WEBHOOK_SECRET || { public: disabled, why: disabled };
  }
  // The server's secret is the administrator's and opens the default workspace only: another
  // workspace signs with its own (so a team given it cannot sign into another team's workflows).
  const name = own ?? WORKSPACE_WEBHOOK_SECRET;
  const where = web.engine.workspace === DEFAULT_WORKSPACE ? '' : ` --workspace ${web.engine.workspace}`;
  const whose = own
    ? `workflow ${workflow!.id} names webhook secret ${name}`
    : `workspace ${web.engine.workspace} signs its webhooks with ${name}`;
  try {
    const secret = (await web.engine.credentials.get(name))?.reveal();
    if (secret) return secret;
    return {
      public: unusable,
      why: `${whose}, which is not set: \`handoff credentials set ${name}${where}\``,
    };
  } catch (error) {
    if (!(error instanceof CredentialDecryptError)) throw error;
    return { public: unusable, why: `${whose}: ${error.message}` };
  }
}

/** Checks `sha256=<hex>` against the HMAC-SHA256 of the raw body bytes. */
function signatureMatches(secret: string, body: Uint8Array, header: string): boolean {
  const hex = /^sha256=([0-9a-f]{64})$/i.exec(header.trim())?.[1];
  if (!hex) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Uint8Array.from(hex.match(/../g) ?? [], (byte) => parseInt(byte, 16));
  return timingSafeEqual(given, expected);
}
