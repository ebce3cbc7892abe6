/**
 * An item set aside because it may be dangerous is never offered, as the big primary
 * button, an action that hides it: the suggestion is skip (or a ticket), whatever the
 * model proposed.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { loadEnv } from '../../shared/config/env.ts';
import { safeSuggestion } from '../../shared/gate/safe-suggestion.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { createApp } from '../../shared/web/app.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';

const KEY = Buffer.alloc(32, 7); // the fixture's link key
let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

const PHISH = mail({
  from: 'security@northwlnd-support.example',
  subject: 'Action required: your password expires in 24 hours',
  body: 'Dear user,\n\nVerify your account within 24 hours or it will be suspended: http://northwlnd-support.example/login\n',
});

/** The decide page for the one pending decision, as the person's signed link opens it. */
async function primaryButton(): Promise<string> {
  const link = fixture.notices.find((n) => n.kind === 'asked') as { link: string } | undefined;
  const url = new URL(link!.link);
  const app = createApp({
    engine: fixture.deps,
    env: loadEnv({ HANDOFF_STATE_DIR: fixture.dir }),
    linkKey: { get: async () => KEY },
    requireToken: true,
  });
  const page = await (await app.request(`${url.pathname}${url.search}`)).text();
  const button = /<button class="button button-primary"[^>]*>([\s\S]*?)<\/button>/.exec(page);
  return button![1]!.replace(/\s+/g, ' ').trim();
}

describe('a suggestion for an item that looks dangerous', () => {
  it('the offline model suggests leaving a phishing message alone, and the decide page offers that first', async () => {
    fixture = await engineFixture({ messages: [PHISH], model: () => new OfflineModel() });

    await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });

    const [decision] = await listPending(fixture.store);
    expect(decision!.reasoning).toMatch(/phishing/);
    expect(['skip', 'file_ticket']).toContain(decision!.suggested_action);
    const button = await primaryButton();
    expect(button).toMatch(/^Do what it suggests: (skip|file ticket)$/);
    expect(button).not.toMatch(/archive/i);
  });

  it('becomes skip when a model suggests archiving what it calls phishing, and approving it leaves the message alone', async () => {
    fixture = await engineFixture({
      messages: [PHISH],
      model: () =>
        new ScriptedModel(
          executorScript(() => ({
            action: 'archive',
            confidence: 0.3,
            force_interrupt: true,
            reasoning: 'This looks like phishing from a look-alike domain; I will not touch it without you.',
          })),
        ),
    });

    await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });

    const [decision] = await listPending(fixture.store);
    expect(decision!.suggested_action).toBe('skip');
    expect(decision!.reasoning).toContain('Suggesting skip instead of "archive"');
    expect(await primaryButton()).toBe('Do what it suggests: skip');
    await decide(fixture.deps, decision!.id, 'approve_suggested', null);
    expect(await fixture.inbox()).toHaveLength(1); // not archived
    expect(await fixture.folder('Archive')).toHaveLength(0);
  });

  it('keeps a safe suggestion, and any suggestion for an item nobody called dangerous', () => {
    expect(safeSuggestion({ action: 'file_ticket', reasoning: 'Suspicious sign-in report' }).action).toBe(
      'file_ticket',
    );
    expect(safeSuggestion({ action: 'delete', reasoning: 'A spoofed sender' }).action).toBe('skip');
    expect(safeSuggestion({ action: 'draft_reply', reasoning: 'A scam, asks for gift cards' }).action).toBe(
      'skip',
    );
    const plain = { action: 'archive', reasoning: 'Nothing in the instructions covers this.' };
    expect(safeSuggestion(plain)).toEqual(plain);
  });
});
