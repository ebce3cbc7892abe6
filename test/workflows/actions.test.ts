import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { InvalidInputError } from '../../shared/errors/index.ts';
import { addEntry } from '../../shared/integrations/registry.ts';
import { writeMaildir } from '../../shared/sources/maildir/generate.ts';
import { MaildirSource } from '../../shared/sources/maildir/maildir-source.ts';
import { SOURCE_TYPES } from '../../shared/sources/source-types.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import { listWorkflows, saveWorkflow } from '../../shared/workflows/repository.ts';

const withActions = (actions: string[]) => `id: acts
name: Acts
instructions: Do things.
trigger: { manual: true }
source: { type: maildir, path: /abs/Maildir }
actions:
${actions.map((a) => `  - { name: ${a} }`).join('\n')}
human_gate: { options: [skip] }
`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-actions-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('workflow actions are what the source or a named integration can do', () => {
  it('accepts every action the maildir source declares, and an integration tool', () => {
    const w = parseWorkflow(withActions([...SOURCE_TYPES.maildir.actions, 'linear__create_issue']), 'a.yaml');
    expect(w.actions.map((a) => a.name)).toEqual([...SOURCE_TYPES.maildir.actions, 'linear__create_issue']);
  });

  it('the maildir source carries out every action it declares', async () => {
    const maildir = join(dir, 'Maildir');
    const actions = SOURCE_TYPES.maildir.actions;
    const files = await writeMaildir(
      maildir,
      actions.map((a) => ({
        from: 'a@x.example',
        to: 'me@x.example',
        subject: a,
        body: 'hi\n',
        date: new Date(),
        messageId: `<${a}@x.example>`,
      })),
    );
    const source = new MaildirSource(maildir);
    const context = {
      store: new JsonFileStore(join(dir, 'state')),
      workflowId: 'w',
      runId: 'r',
      note: null,
      reasoning: null,
    };
    const items = [];
    for (const file of files) {
      const read = await source.read(file);
      if (!read.ok) throw new Error(read.reason);
      items.push(read.item);
    }
    await expect(source.perform('explode', items[0]!, context)).rejects.toThrow(/cannot explode/);
    for (const [i, action] of actions.entries())
      await expect(source.perform(action, items[i]!, context)).resolves.toEqual(expect.any(String));
  });

  it('refuses an action nothing can carry out, with one line naming the field', () => {
    expect(() => parseWorkflow(withActions(['archive', 'explode']), 'a.yaml')).toThrow(
      new InvalidInputError(
        `a.yaml: actions.1.name: the maildir source cannot "explode" (it can: archive, delete, draft_reply, ` +
          "file_ticket; or name an integration's tool as <entry>__<tool>)",
      ),
    );
  });

  it('refuses at save an integration tool whose integration is not in the registry, and saves nothing', async () => {
    const store = new JsonFileStore(dir);
    const workflow = parseWorkflow(withActions(['archive', 'ledger__add_line']), 'a.yaml');

    await expect(saveWorkflow(store, workflow)).rejects.toThrow(
      new InvalidInputError(
        'actions.1.name: "ledger__add_line" names no integration "ledger" (see `handoff integrations`)',
      ),
    );
    expect(await listWorkflows(store)).toEqual([]);

    await addEntry(store, {
      name: 'ledger',
      title: 'Ledger',
      transport: { kind: 'http', url: 'http://127.0.0.1:9/' },
    });
    await saveWorkflow(store, workflow);
    expect((await listWorkflows(store)).map((w) => w.id)).toEqual(['acts']);
  });

  it('refuses at save an `integrations` name not in the registry (built-in ones are known)', async () => {
    const store = new JsonFileStore(dir);
    const workflow = {
      ...parseWorkflow(withActions(['archive']), 'a.yaml'),
      integrations: ['fetch', 'nope'],
    };
    await expect(saveWorkflow(store, workflow)).rejects.toThrow(
      new InvalidInputError('integrations.1: no integration "nope" (see `handoff integrations`)'),
    );
    expect(await listWorkflows(store)).toEqual([]);
    await saveWorkflow(store, { ...workflow, integrations: ['fetch'] });
    expect((await listWorkflows(store)).map((w) => w.id)).toEqual(['acts']);
  });

  it('lists every problem a save finds at once: each unknown integration and each missing skill', async () => {
    const store = new JsonFileStore(dir);
    const workflow = {
      ...parseWorkflow(withActions(['archive', 'ledger__add_line', 'crm__add_lead']), 'a.yaml'),
      skills: ['tone-of-voice'],
    };
    await expect(saveWorkflow(store, workflow)).rejects.toThrow(
      new InvalidInputError(
        'actions.1.name: "ledger__add_line" names no integration "ledger" (see `handoff integrations`); ' +
          'actions.2.name: "crm__add_lead" names no integration "crm" (see `handoff integrations`); ' +
          'skills.0: no skill "tone-of-voice" (add it: handoff skills add tone-of-voice --file FILE)',
      ),
    );
    expect(await listWorkflows(store)).toEqual([]);
  });
});
