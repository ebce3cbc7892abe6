import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { lambdaWebApp } from '../../shared/aws/lambda-web.ts';
import { loadEnv } from '../../shared/config/env.ts';
import { InvalidInputError } from '../../shared/errors/index.ts';
import { listWorkflows } from '../../shared/workflows/repository.ts';
import { loadWorkflowFile, MAX_WORKFLOW_BYTES, parseWorkflow } from '../../shared/workflows/load.ts';
import { runCli } from '../support/cli.ts';
import {
  engineFixture,
  eventWorkflowYaml,
  workflowYaml,
  type EngineFixture,
} from '../support/engine-fixture.ts';
import { ScriptedModel } from '../support/scripted-model.ts';
import { API_KEY, makeHarness, type Harness } from '../web/support.ts';

/** A valid workflow padded with a trailing comment to exactly `bytes` bytes. */
function workflowOfSize(maildir: string, bytes: number, id = 'inbox'): string {
  return padded(workflowYaml(maildir).replace('id: inbox', `id: ${id}`), bytes);
}

/** `yaml` padded with a trailing comment to exactly `bytes` bytes. */
function padded(yaml: string, bytes: number): string {
  const base = yaml + '#';
  return base + 'x'.repeat(bytes - Buffer.byteLength(base) - 1) + '\n';
}

/** The "billion laughs": a few hundred bytes that expand to millions of nodes. */
const ALIAS_BOMB = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...'bcdefghi'.split('').map((k, i) => {
    const prev = 'abcdefghi'[i]!;
    return `${k}: &${k} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`;
  }),
].join('\n');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-limits-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** The deployment's own host: the Lambda app answers only requests addressed to it. */
const GATEWAY = 'https://handoff.example';

describe('workflow file limits', () => {
  it('refuses a YAML alias bomb with one line naming the file', async () => {
    const file = join(dir, 'bomb.yaml');
    await writeFile(file, ALIAS_BOMB);

    await expect(loadWorkflowFile(file)).rejects.toThrow(InvalidInputError);
    await expect(loadWorkflowFile(file)).rejects.toThrow(
      new RegExp(`^${file}: not valid YAML: Excessive alias count[^\\n]*$`),
    );
    expect(() => parseWorkflow(ALIAS_BOMB, 'body.yaml')).toThrow(
      /^body\.yaml: not valid YAML: Excessive alias/,
    );
  });

  it('refuses a file one byte over the limit, and a 30 MB one, before parsing it', async () => {
    const maildir = join(dir, 'Maildir');
    const atLimit = join(dir, 'at-limit.yaml');
    const over = join(dir, 'over.yaml');
    const huge = join(dir, 'huge.yaml');
    await writeFile(atLimit, workflowOfSize(maildir, MAX_WORKFLOW_BYTES));
    await writeFile(over, workflowOfSize(maildir, MAX_WORKFLOW_BYTES + 1));
    await writeFile(huge, '[' + '{'.repeat(30 * 1024 * 1024));

    expect((await loadWorkflowFile(atLimit)).id).toBe('inbox');
    const refusal = new InvalidInputError(
      `${over}: larger than ${MAX_WORKFLOW_BYTES} bytes, the limit for a workflow file`,
    );
    await expect(loadWorkflowFile(over)).rejects.toThrow(refusal);
    const started = performance.now();
    await expect(loadWorkflowFile(huge)).rejects.toThrow(/huge\.yaml: larger than/);
    expect(performance.now() - started).toBeLessThan(200);
    const text = workflowOfSize(maildir, MAX_WORKFLOW_BYTES + 1);
    expect(() => parseWorkflow(text, 'body.yaml')).toThrow(/^body\.yaml: larger than 262144 bytes/);
  });
});

describe('one limit for the CLI, the local API and the Lambda API', () => {
  let h: Harness;
  let fixture: EngineFixture;
  afterEach(async () => {
    await h?.cleanup();
    await fixture?.cleanup();
  });

  it('accepts a workflow of exactly the limit and refuses one byte more, naming the file', async () => {
    const maildir = join(dir, 'Maildir');
    const file = (name: string, bytes: number, id: string) =>
      writeFile(join(dir, name), workflowOfSize(maildir, bytes, id)).then(() => join(dir, name));
    const env = { HANDOFF_STATE_DIR: join(dir, 'state') };

    // CLI, in a child process.
    const cliOk = await runCli(
      ['workflows', 'add', await file('ok.yaml', MAX_WORKFLOW_BYTES, 'cli-ok')],
      env,
    );
    expect(cliOk.code).toBe(0);
    const overFile = await file('over.yaml', MAX_WORKFLOW_BYTES + 1, 'cli-over');
    const cliOver = await runCli(['workflows', 'add', overFile], env);
    expect(cliOver.code).toBe(1);
    expect(cliOver.stderr.trim().split('\n')).toHaveLength(1);
    expect(cliOver.stderr).toContain(`${overFile}: larger than ${MAX_WORKFLOW_BYTES} bytes`);

    // Local API.
    h = await makeHarness();
    // The Lambda API takes no Maildir workflow (a Lambda has no local folders): an event one there.
    const put = (app: Harness['app'], id: string, bytes: number, origin = '') =>
      app.request(`${origin}/api/workflows/${id}`, {
        method: 'PUT',
        body: origin ? padded(eventWorkflowYaml(id), bytes) : workflowOfSize(maildir, bytes, id),
        headers: { ...h.auth(), 'Content-Type': 'application/yaml' },
      });
    expect((await put(h.app, 'api-ok', MAX_WORKFLOW_BYTES)).status).toBe(201);
    const apiOver = await put(h.app, 'api-over', MAX_WORKFLOW_BYTES + 1);
    expect(apiOver.status).toBe(413);
    expect(await apiOver.json()).toEqual({
      error: `body.yaml: larger than ${MAX_WORKFLOW_BYTES} bytes, the limit for a workflow file`,
    });

    // Lambda API.
    fixture = await engineFixture({ messages: [], model: () => new ScriptedModel(() => ({ text: '' })) });
    const { app } = lambdaWebApp({
      engine: fixture.deps,
      env: loadEnv({ HANDOFF_STATE_DIR: fixture.dir, HANDOFF_API_KEY: API_KEY, UI_BASE_URL: GATEWAY }),
      linkKey: { get: async () => Buffer.alloc(32, 7) },
      onWorkflowChange: async () => undefined,
    });
    expect((await put(app, 'lambda-ok', MAX_WORKFLOW_BYTES, GATEWAY)).status).toBe(201);
    expect((await put(app, 'lambda-over', MAX_WORKFLOW_BYTES + 1, GATEWAY)).status).toBe(413);
    expect((await listWorkflows(fixture.store)).map((w) => w.id)).not.toContain('lambda-over');
  });
});
