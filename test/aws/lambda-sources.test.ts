import { afterEach, describe, expect, it } from '@jest/globals';
import { lambdaWebApp } from '../../shared/aws/lambda-web.ts';
import { loadEnv } from '../../shared/config/env.ts';
import { lambdaSourceProblem } from '../../shared/sources/source-types.ts';
import { listWorkflows } from '../../shared/workflows/repository.ts';
import {
  engineFixture,
  eventWorkflowYaml,
  workflowYaml,
  type EngineFixture,
} from '../support/engine-fixture.ts';
import { ScriptedModel } from '../support/scripted-model.ts';
import { asIamCaller } from './support.ts';

/** The deployment's own host: the Lambda app answers only requests addressed to it. */
const GATEWAY = 'https://handoff.example';
const REFUSAL =
  'a Lambda function has no local folders: source type maildir works only on a laptop; use imap or event';

let fixture: EngineFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

describe('the deployed API and local sources', () => {
  it('refuses a Maildir workflow with 400 and one line naming the source types that work there', async () => {
    fixture = await engineFixture({ messages: [], model: () => new ScriptedModel(() => ({ text: '' })) });
    const changes: string[] = [];
    const { app } = lambdaWebApp({
      engine: fixture.deps,
      env: loadEnv({ HANDOFF_STATE_DIR: fixture.dir, UI_BASE_URL: GATEWAY }),
      linkKey: { get: async () => Buffer.alloc(32, 7) },
      onWorkflowChange: async (id) => void changes.push(id),
    });
    const put = (id: string, body: string) =>
      asIamCaller(app, `${GATEWAY}/api/workflows/${id}`, {
        method: 'PUT',
        body,
        headers: { 'Content-Type': 'application/yaml' },
      });
    const before = await listWorkflows(fixture.store);

    const refused = await put('mail', workflowYaml(fixture.maildir).replace('id: inbox', 'id: mail'));

    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: REFUSAL });
    expect(await listWorkflows(fixture.store)).toEqual(before);
    expect(changes).toEqual([]);

    // A source that works there is saved and announced.
    expect((await put('hooks', eventWorkflowYaml('hooks'))).status).toBe(201);
    expect(changes).toEqual(['hooks']);
  });

  it('names the usable types from the one declaration of source types', () => {
    expect(lambdaSourceProblem('maildir')).toBe(REFUSAL);
    expect(lambdaSourceProblem('event')).toBeNull();
    expect(lambdaSourceProblem('imap')).toBeNull();
  });
});
