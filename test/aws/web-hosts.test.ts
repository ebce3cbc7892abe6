/** The HTTP app on Lambda answers only at API Gateway's domain name and the UI base URL's host. */
import { afterEach, describe, expect, it } from '@jest/globals';
import { lambdaWebApp, lambdaWebHandler } from '../../shared/aws/lambda-web.ts';
import { loadEnv } from '../../shared/config/env.ts';
import { NotFoundError } from '../../shared/errors/index.ts';
import { getWorkflow } from '../../shared/workflows/repository.ts';
import { engineFixture, eventWorkflowYaml, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel } from '../support/scripted-model.ts';
import { httpEvent, lambdaContext, UI } from './support.ts';

const GATEWAY = 'abc123.execute-api.us-east-1.amazonaws.com';
let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

async function handler() {
  fixture = await engineFixture({ messages: [], model: () => new ScriptedModel(() => ({ text: '' })) });
  const changes: string[] = [];
  const { app, launcher } = lambdaWebApp({
    engine: fixture.deps,
    env: loadEnv({ HANDOFF_STATE_DIR: fixture.dir, UI_BASE_URL: UI }),
    linkKey: { get: async () => Buffer.alloc(32, 7) },
    onWorkflowChange: async (id) => void changes.push(id),
  });
  return { serve: lambdaWebHandler(app, launcher), changes };
}

/** `PUT /api/workflows/second` as API Gateway hands it over: `host` header and the gateway's domain name. */
function putWorkflow(host: string, domainName: string, headers: Record<string, string> = {}) {
  const yaml = eventWorkflowYaml('second'); // a Lambda takes no Maildir workflow
  const event = httpEvent('PUT', '/api/workflows/second', {
    body: yaml,
    contentType: 'application/yaml',
    headers,
  });
  return {
    ...event,
    headers: { ...event.headers, host },
    requestContext: { ...event.requestContext, domainName },
  };
}

describe('the HTTP app on Lambda', () => {
  it('refuses another Host (a rebound name, even loopback) with one plain line, and changes nothing', async () => {
    const { serve, changes } = await handler();
    for (const host of ['rebind.attacker.example', '127.0.0.1', 'localhost:3000']) {
      const res = await serve(putWorkflow(host, GATEWAY), lambdaContext());
      expect(res.statusCode).toBe(403);
      expect(res.headers?.['content-type']).toMatch(/^text\/plain/);
      expect(res.body).toBe(`refused: "${host}" is not this server's address or its UI base URL's\n`);
    }
    const foreign = await serve(
      putWorkflow(GATEWAY, GATEWAY, { origin: 'https://evil.example' }),
      lambdaContext(),
    );
    expect(foreign.statusCode).toBe(403);
    expect(foreign.body).toBe(
      'refused: a change sent from another site (Origin "https://evil.example"); nothing changed\n',
    );
    await expect(getWorkflow(fixture.store, 'second')).rejects.toBeInstanceOf(NotFoundError);
    expect(changes).toEqual([]);
  });

  it("answers at API Gateway's own domain name and at the custom domain in UI_BASE_URL", async () => {
    const { serve, changes } = await handler();
    const custom = new URL(UI).host;
    expect((await serve(putWorkflow(GATEWAY, GATEWAY), lambdaContext())).statusCode).toBe(201);
    const viaCustom = putWorkflow(custom, GATEWAY, { origin: UI });
    expect((await serve(viaCustom, lambdaContext())).statusCode).toBe(200);
    expect(changes).toEqual(['second', 'second']);
  });
});
