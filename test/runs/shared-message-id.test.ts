import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { renderMessage } from '../../shared/sources/maildir/generate.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript, type ItemView } from '../support/scripted-model.ts';

const manual = { kind: 'manual', detail: null } as const;
const SHARED = '<same-id@vendor.example>';
let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

/** Archives "March" confidently, is unsure about everything else. */
function proposals(item: ItemView) {
  return item.subject.includes('March')
    ? { action: 'archive', confidence: 0.95, reasoning: 'a receipt' }
    : { action: 'archive', confidence: 0.4, reasoning: 'unsure' };
}

describe('messages that share a Message-ID', () => {
  it('handles each different message as its own item and a byte-identical copy as one, across runs', async () => {
    // Prepare: two different messages with one Message-ID, and a byte-identical copy of the first.
    const march = mail({ from: 'billing@vendor.example', subject: 'Invoice March', messageId: SHARED });
    const april = mail({ from: 'billing@vendor.example', subject: 'Invoice April', messageId: SHARED });
    fixture = await engineFixture({
      messages: [march, april],
      model: () => new ScriptedModel(executorScript(proposals)),
    });
    const [first, second] = (await fixture.inbox()).sort();
    await copyFile(join(fixture.maildir, 'new', first!), join(fixture.maildir, 'cur', 'zz-copy:2,S'));
    await copyFile(join(fixture.maildir, 'new', second!), join(fixture.maildir, 'cur', 'zz-copy2:2,S'));

    // Act: the first run acts on March, asks about April, and records the copy.
    const run = await startRun(fixture.deps, 'inbox', manual);

    // Assess
    expect(run.counts).toMatchObject({ acted: 1, deferred: 1 });
    const [pending, ...more] = await listPending(fixture.store);
    expect(more).toHaveLength(0);
    expect(pending).toMatchObject({ subject: 'Invoice April' });
    expect(pending!.item_id).toMatch(/^<same-id@vendor\.example>#[0-9a-f]{12}$/);
    await decide(fixture.deps, pending!.id, 'archive', null);
    expect(await fixture.folder('.Archive')).toHaveLength(2);
    expect((await fixture.inbox()).sort()).toEqual(['zz-copy2:2,S', 'zz-copy:2,S']); // copies are left where they are

    const audit = (await listAudit(fixture.store)).filter((e) => e.item_id);
    expect(audit.map((e) => [e.item_id, e.outcome])).toEqual(
      expect.arrayContaining([
        [SHARED, 'acted'],
        [pending!.item_id, 'acted'],
        ['duplicate:zz-copy:2,S', 'duplicate'],
        ['duplicate:zz-copy2:2,S', 'duplicate'],
      ]),
    );
    const detail = (key: string) => audit.find((e) => e.item_id === key)?.detail;
    expect(detail('duplicate:zz-copy:2,S')).toContain(`a copy of ${SHARED} (`);
    expect(detail('duplicate:zz-copy2:2,S')).toContain(`a copy of ${pending!.item_id} (`);

    // A re-run acts on nothing twice and records the copy only once.
    const again = await startRun(fixture.deps, 'inbox', manual);
    expect(again.counts).toMatchObject({ acted: 0, deferred: 0 });
    expect((await listAudit(fixture.store)).filter((e) => e.item_id)).toHaveLength(audit.length);
  });

  it('gives a later, different message under a handled Message-ID its own item, even when it sorts first', async () => {
    fixture = await engineFixture({
      messages: [mail({ from: 'billing@vendor.example', subject: 'Invoice March', messageId: SHARED })],
      model: () => new ScriptedModel(executorScript(proposals)),
    });
    await startRun(fixture.deps, 'inbox', manual);
    expect(await fixture.inbox()).toHaveLength(0);

    // A different message with the same Message-ID arrives, named to sort before everything.
    const may = renderMessage(
      mail({ from: 'billing@vendor.example', subject: 'Invoice May', messageId: SHARED }),
    );
    await writeFile(join(fixture.maildir, 'new', '0000.a'), may);

    const run = await startRun(fixture.deps, 'inbox', manual);

    expect(run.status).toBe('waiting');
    const [pending] = await listPending(fixture.store);
    expect(pending).toMatchObject({ subject: 'Invoice May' });
    expect(pending!.item_id).not.toBe(SHARED);
  });
});
