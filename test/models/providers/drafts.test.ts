/**
 * Reply drafts written by a real provider (an OpenAI-compatible endpoint, played by a local
 * server speaking its wire format): the prompt carries the message and the workflow's
 * instructions, the saved draft is the model's text (or the person's edit of it), and the
 * note is never in any saved mail, on Maildir and on a real IMAP server (Dovecot).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { simpleParser } from 'mailparser';
import { modelFactory } from '../../../shared/models/provider.ts';
import { decide } from '../../../shared/runs/decide.ts';
import { listPending } from '../../../shared/runs/decision-repository.ts';
import { startRun } from '../../../shared/runs/start-run.ts';
import { Secret } from '../../../shared/credentials/secret.ts';
import { renderMessage } from '../../../shared/sources/maildir/generate.ts';
import { parseWorkflow } from '../../../shared/workflows/load.ts';
import { saveWorkflow } from '../../../shared/workflows/repository.ts';
import type { TurnInput } from '../../../shared/models/turn-model.ts';
import { engineFixture, mail, type EngineFixture } from '../../support/engine-fixture.ts';
import { bySubject, executorScript } from '../../support/scripted-model.ts';
import { startDovecot, DOVECOT_PASSWORD, type Dovecot } from '../../support/dovecot.ts';
import { IMAP_CREDENTIAL } from '../../support/imap-fixture.ts';
import { scriptPolicy, type Policy } from './support/conversation.ts';
import { openAIServer, type ScriptedServer } from './support/wire-servers.ts';

const manual = { kind: 'manual', detail: null } as const;
const NOTE = 'Tomi is a client; always draft a reply to him';
const INSTRUCTIONS = 'Draft replies to clients in a friendly tone; archive newsletters.';

/** What the model writes for each message: its reply names the subject it answers. */
function modelReply(input: TurnInput): string {
  const first = input.messages[0]!.content.flatMap((b) => (b.type === 'textBlock' ? [b.text] : [])).join(
    '\n',
  );
  const facts = JSON.parse(/^Reply to: (.*)$/m.exec(first)![1]!) as { subject: string; sender_name: string };
  return `Dear ${facts.sender_name},\n\nThe terms for "${facts.subject}" follow this week.\n\nKind regards,\nAna`;
}

/** The executor asks about every item (a reply suggested, unsure); the reply writer writes `modelReply`. */
function policy(): Policy {
  const executor = scriptPolicy(
    executorScript(
      bySubject({
        Renewal: { action: 'draft_reply', confidence: 0.5, reasoning: 'a client asks for terms' },
        Pricing: { action: 'draft_reply', confidence: 0.5, reasoning: 'a client asks about prices' },
      }),
    ),
  );
  return (input) => {
    const tools = input.options?.toolSpecs ?? [];
    return tools.length === 0 ? { text: modelReply(input) } : executor(input);
  };
}

function openaiEnv(url: string) {
  return {
    HANDOFF_MODEL_PROVIDER: 'openai',
    HANDOFF_MODEL_ID: 'local-llama',
    OPENAI_BASE_URL: `${url}/v1`,
    OPENAI_API_KEY: 'sk-local-test',
  };
}

const RENEWAL = {
  from: 'tomi@fastmail.example',
  fromName: 'Tomi Okafor',
  subject: 'Renewal terms',
  body: 'Hello,\n\nOur contract ends in March. Could you send the renewal terms by Friday?\n',
};
const PRICING = {
  from: 'lea@client.example',
  fromName: 'Lea Park',
  subject: 'Pricing question',
  body: 'Hi,\n\nDo prices change next year?\n',
};

/** A reply's own words: its body above the quoted original. */
function ownWords(text: string | undefined): string {
  return (text ?? '').replace(/\r\n/g, '\n').split(/\n\nOn .+ wrote:\n/)[0]!;
}

/** The user text of every reply-writer request the server received. */
function replyPrompts(server: ScriptedServer): string[] {
  return server.requests
    .filter((r) => !r.body.tools)
    .map((r) => JSON.stringify((r.body.messages as unknown[]).slice(1)));
}

let server: ScriptedServer | undefined;
let fixture: EngineFixture | undefined;
afterEach(async () => {
  await server?.close();
  await fixture?.cleanup();
  server = undefined;
  fixture = undefined;
});

async function maildirFixture(): Promise<EngineFixture> {
  server = await openAIServer({ policy: policy() });
  const model = await modelFactory(openaiEnv(server.url))('primary');
  return engineFixture({
    messages: [mail(RENEWAL), mail(PRICING)],
    model: () => model,
  });
}

/** The workflow's instructions as the test sets them (the fixture's YAML has its own). */
async function withInstructions(f: EngineFixture): Promise<void> {
  await saveWorkflow(f.store, { ...f.workflow, instructions: INSTRUCTIONS });
}

async function maildirDrafts(f: EngineFixture): Promise<string[]> {
  const dir = path.join(f.maildir, '.Drafts', 'cur');
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  return Promise.all(names.map((n) => fs.readFile(path.join(dir, n), 'utf8')));
}

describe('reply drafts by the configured model, on Maildir', () => {
  it('the prompt carries the message and the instructions, and the draft shown is the model’s text', async () => {
    fixture = await maildirFixture();
    await withInstructions(fixture);

    await startRun(fixture.deps, 'inbox', manual);

    const prompts = replyPrompts(server!);
    expect(prompts).toHaveLength(2); // one reply per item set aside
    const renewalPrompt = prompts.find((p) => p.includes('Renewal terms'))!;
    expect(renewalPrompt).toContain('Could you send the renewal terms by Friday?');
    expect(renewalPrompt).toContain(INSTRUCTIONS);
    expect(renewalPrompt).toContain('tomi@fastmail.example');
    const pending = await listPending(fixture.store);
    const renewal = pending.find((d) => d.subject === 'Renewal terms')!;
    expect(renewal.drafts?.find((d) => d.action === 'draft_reply')).toEqual({
      action: 'draft_reply',
      title: null,
      body: 'Dear Tomi Okafor,\n\nThe terms for "Renewal terms" follow this week.\n\nKind regards,\nAna',
      by: 'model',
    });
  });

  it('saves the model’s text when approved as drafted and the edit when edited; the note is in neither', async () => {
    fixture = await maildirFixture();
    await startRun(fixture.deps, 'inbox', manual);
    const pending = await listPending(fixture.store);
    const renewal = pending.find((d) => d.subject === 'Renewal terms')!;
    const pricing = pending.find((d) => d.subject === 'Pricing question')!;
    const edited = 'Hi Lea,\n\nPrices stay the same next year.\n\nAna';

    await decide(fixture.deps, renewal.id, 'approve_suggested', NOTE);
    await decide(fixture.deps, pricing.id, 'draft_reply', 'just this once', { edits: { body: edited } });

    const drafts = await maildirDrafts(fixture);
    expect(drafts).toHaveLength(2);
    const parsed = await Promise.all(drafts.map((raw) => simpleParser(raw)));
    const bySubjectLine = new Map(parsed.map((p) => [p.subject, ownWords(p.text)]));
    expect(bySubjectLine.get('Re: Renewal terms')).toBe(renewal.drafts![0]!.body);
    expect(bySubjectLine.get('Re: Pricing question')).toBe(edited);
    for (const raw of drafts) {
      expect(raw).not.toContain('always draft a reply');
      expect(raw).not.toContain('just this once');
    }
  });
});

describe('reply drafts by the configured model, on IMAP (Dovecot)', () => {
  let dovecot: Dovecot;
  beforeAll(async () => {
    dovecot = await startDovecot();
  });
  afterAll(async () => {
    await dovecot.stop();
  });

  it('saves the approved and the edited draft to Drafts as replies, and the note is in no saved mail', async () => {
    await dovecot.append(
      [RENEWAL, PRICING].map((m, i) =>
        renderMessage({
          ...m,
          to: 'me@example.com',
          date: new Date(Date.UTC(2026, 2, 10, 9, i)),
          messageId: `<imap-draft-${i}@client.example>`,
        }),
      ),
    );
    fixture = await maildirFixture(); // its engine, with an IMAP workflow beside the Maildir one
    await fixture.deps.credentials.set(IMAP_CREDENTIAL, new Secret(DOVECOT_PASSWORD));
    await saveWorkflow(
      fixture.store,
      parseWorkflow(
        `id: mailbox
name: Mailbox
instructions: ${INSTRUCTIONS}
trigger: { manual: true }
source: { type: imap, host: ${dovecot.host}, port: ${dovecot.port}, tls: false, user: me@example.com, credential: ${IMAP_CREDENTIAL}, mailbox: INBOX }
actions:
  - { name: archive }
  - { name: draft_reply }
human_gate: { options: [archive, draft_reply, skip] }
`,
        'mailbox.yaml',
      ),
    );

    await startRun(fixture.deps, 'mailbox', manual);
    const pending = (await listPending(fixture.store)).filter((d) => d.workflow_id === 'mailbox');
    const renewal = pending.find((d) => d.subject === 'Renewal terms')!;
    const pricing = pending.find((d) => d.subject === 'Pricing question')!;
    const edited = 'Hi Lea,\n\nPrices stay the same next year.\n\nAna';
    await decide(fixture.deps, renewal.id, 'draft_reply', NOTE);
    await decide(fixture.deps, pricing.id, 'draft_reply', 'just this once', { edits: { body: edited } });

    const saved = await dovecot.messages('Drafts');
    expect(saved).toHaveLength(2);
    const parsed = await Promise.all(saved.map((raw) => simpleParser(raw)));
    const reply = parsed.find((p) => p.subject === 'Re: Renewal terms')!;
    expect(reply.inReplyTo).toBe('<imap-draft-0@client.example>');
    expect(ownWords(reply.text)).toBe(renewal.drafts!.find((d) => d.action === 'draft_reply')!.body);
    expect(ownWords(parsed.find((p) => p.subject === 'Re: Pricing question')!.text)).toBe(edited);
    for (const box of ['Drafts', 'INBOX']) {
      for (const raw of await dovecot.messages(box)) {
        expect(raw).not.toContain('always draft a reply');
        expect(raw).not.toContain('just this once');
      }
    }
  });
});
