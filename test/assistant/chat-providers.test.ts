import { promises as fs } from 'node:fs';
import { afterEach, describe, expect, it } from '@jest/globals';
import { sendMessage } from '../../shared/assistant/chat-service.ts';
import {
  anthropicServer,
  openAIServer,
  type ScriptedServer,
} from '../models/providers/support/wire-servers.ts';
import { offlinePolicy } from '../models/providers/support/conversation.ts';
import { addDemoWorkflow, makeEngine } from '../web/support.ts';

let server: ScriptedServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
  server = undefined;
  dir = undefined;
});

const PROVIDERS = [
  {
    name: 'openai (OpenAI-compatible wire format)',
    start: openAIServer,
    env: (url: string) => ({
      HANDOFF_MODEL_PROVIDER: 'openai',
      HANDOFF_MODEL_ID: 'local-llama',
      OPENAI_BASE_URL: `${url}/v1`,
      OPENAI_API_KEY: 'sk-local-test',
    }),
    tools: (body: Record<string, unknown>) =>
      ((body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name),
  },
  {
    name: 'anthropic (Messages wire format)',
    start: anthropicServer,
    env: (url: string) => ({
      HANDOFF_MODEL_PROVIDER: 'anthropic',
      HANDOFF_MODEL_ID: 'claude-test',
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: url,
    }),
    tools: (body: Record<string, unknown>) => ((body.tools ?? []) as { name: string }[]).map((t) => t.name),
  },
];

describe.each(PROVIDERS)('the assistant over a real provider: $name', ({ start, env, tools }) => {
  it('runs the same tools: triage hands off, the Builder drafts, validates, previews and asks; a change keeps the draft; yes saves', async () => {
    server = await start({ policy: offlinePolicy() });
    const made = await makeEngine(env(server.url));
    dir = made.dir;
    await addDemoWorkflow(made.engine, made.dir);

    const asked = await sendMessage(
      made.engine,
      undefined,
      'every weekday at 8, go through my inbox, archive newsletters',
    );
    expect(asked.confirm?.tool).toBe('save_workflow');
    const offered = server.requests.map((r) => tools(r.body));
    expect(offered[0]).toEqual(expect.arrayContaining(['transfer_to_builder', 'transfer_to_operator']));
    expect(offered.at(-1)).toEqual(
      expect.arrayContaining(['list_templates', 'validate_workflow', 'preview_workflow', 'save_workflow']),
    );
    expect(offered.at(-1)).not.toContain('start_run');
    // The Builder was handed the request, not the triage agent's transfer call.
    expect(JSON.stringify(server.requests[1]!.body)).not.toContain('transfer_to_builder"');

    // The next turn, the chat's draft travels in the prompt on the wire, and only the named part changes.
    const sent = server.requests.length;
    const nine = await sendMessage(made.engine, asked.chat_id, 'make it 9am instead of 8');
    expect(nine.text).toContain('schedule: every weekday at 08:00 (UTC) → every weekday at 09:00 (UTC)');
    const prompts = server.requests.slice(sent).map((r) => JSON.stringify(r.body));
    expect(prompts[0]).toContain('Draft workflow: {');
    expect(prompts[0]).toContain('cron(0 8 ? * MON-FRI *)');

    const saved = await sendMessage(made.engine, asked.chat_id, 'yes');
    expect(saved.workflow_id).toBe('inbox-triage-2');
    expect(await made.engine.store.get('workflows', 'inbox-triage-2')).toMatchObject({
      trigger: { schedule: 'cron(0 9 ? * MON-FRI *)' },
    });
  });
});
