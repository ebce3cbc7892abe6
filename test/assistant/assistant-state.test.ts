import { afterEach, describe, expect, it } from '@jest/globals';
import { sendMessage } from '../../shared/assistant/chat-service.ts';
import { getChat, updateChat } from '../../shared/chats/chat-repository.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { listRules } from '../../shared/memory/rules-repository.ts';
import { saveProfile } from '../../shared/profile/profile.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { runAuditPrefix } from '../../shared/audit/audit-ids.ts';
import { EMPTY_COUNTS } from '../../shared/records/runs.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { listSchedules } from '../../shared/schedules/schedules.ts';
import { WorkflowSchema } from '../../shared/workflows/schema.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';

let fx: EngineFixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

const DESCRIBE =
  'every weekday at 8 archive newsletters from my Fastmail inbox and ask me about anything from a person';

async function draftOf(chatId: string) {
  return WorkflowSchema.parse((await getChat(fx!.store, chatId)).draft);
}

describe('the assistant keeps its draft across turns (offline model)', () => {
  it('shows the draft, changes only the named part three times, says what changed, and "yes" saves the pending card', async () => {
    fx = await engineFixture({ messages: [], model: () => new OfflineModel() });
    const drafted = await sendMessage(fx.deps, undefined, DESCRIBE);
    const chat = drafted.chat_id;
    expect(drafted.confirm?.tool).toBe('save_workflow');
    const first = await draftOf(chat);
    expect(first.trigger).toEqual({ schedule: 'cron(0 8 ? * MON-FRI *)' });
    expect(first.source).toMatchObject({
      type: 'imap',
      host: 'imap.fastmail.com',
      mailbox: 'INBOX',
      user: 'you@fastmail.com',
    });
    expect(drafted.text).toContain('I guessed the login: say "as you@yourdomain" to set yours.');

    const shown = await sendMessage(fx.deps, chat, 'show me the workflow you drafted');
    expect(shown.text).toContain(`Workflow "${first.name}" (${first.id})`);
    expect(shown.text).toContain('Schedule: every weekday at 08:00 (UTC)');
    expect(shown.text).toContain('Source: the IMAP mailbox INBOX of');
    expect(shown.text).not.toMatch(/Which mailbox/);
    expect(shown.confirm?.tool).toBe('save_workflow');

    const nine = await sendMessage(fx.deps, chat, 'make it 9am instead of 8');
    expect(nine.text).toContain('schedule: every weekday at 08:00 (UTC) → every weekday at 09:00 (UTC)');
    expect((await draftOf(chat)).trigger).toEqual({ schedule: 'cron(0 9 ? * MON-FRI *)' });
    expect((await draftOf(chat)).id).toBe(first.id);

    const inbox = await sendMessage(fx.deps, chat, 'only the Fastmail inbox');
    expect(inbox.text).toMatch(/^Nothing changed: the draft already does that\./);
    expect((await draftOf(chat)).source).toEqual(first.source);

    const invoices = await sendMessage(fx.deps, chat, 'also ask about invoices');
    expect(invoices.text).toContain('instructions: added "Ask me about invoices; never act on them alone."');
    const refined = await draftOf(chat);
    expect(refined.instructions).toContain('Ask me about invoices');
    expect(refined.trigger).toEqual({ schedule: 'cron(0 9 ? * MON-FRI *)' }); // earlier changes kept
    expect(invoices.confirm?.card).toMatchObject({
      schedule: 'every weekday at 09:00 (UTC)',
      credentials: [{ name: 'MAIL_PASSWORD', set: false }],
      saves_as: 'paused',
    });

    const early = await sendMessage(fx.deps, chat, 'run it now');
    expect(early.text).toMatch(/is not saved yet, so it cannot run\. Say yes to save it/);
    expect(early.confirm?.tool).toBe('save_workflow'); // the save still waits
    expect(await fx.store.list('runs')).toEqual([]);

    // No drops the card and keeps the draft; a later yes asks for the card again, the next saves.
    const no = await sendMessage(fx.deps, chat, 'no');
    expect(no.text).toMatch(/^Cancelled: save workflow .* The draft is kept/);
    expect((await getChat(fx.store, chat)).confirm).toBeNull();
    const again = await sendMessage(fx.deps, chat, 'yes');
    expect(again.confirm?.tool).toBe('save_workflow');
    expect(await fx.store.get('workflows', first.id)).toBeUndefined();
    const saved = await sendMessage(fx.deps, chat, 'yes');
    expect(saved.workflow_id).toBe(first.id);
    expect(saved.text).toMatch(/paused: it needs MAIL_PASSWORD/);
    expect(await fx.store.get('workflows', first.id)).toMatchObject({ instructions: refined.instructions });
    // Never active while it cannot run: its schedule says what it needs.
    expect((await listSchedules(fx.store)).find((s) => s.workflow_id === first.id)).toMatchObject({
      paused: true,
      needs: ['MAIL_PASSWORD'],
      next: [],
    });
    const listed = await sendMessage(fx.deps, chat, 'list my workflows');
    expect(listed.text).toContain(`${first.id} ("${first.name}", paused: needs MAIL_PASSWORD)`);
    const nothing = await sendMessage(fx.deps, chat, 'yes');
    expect(nothing.text).toMatch(/^Nothing is waiting for your yes/);
    const run = await sendMessage(fx.deps, chat, `run ${first.id} now`);
    expect(run.confirm).toBeUndefined();
    expect(run.text).toMatch(/cannot run: it needs MAIL_PASSWORD/);
    expect(await fx.store.list('runs')).toEqual([]);
  });

  it('acts on what exists: delete goes through the card and never drafts; rules and decisions are answered from the record', async () => {
    fx = await engineFixture({
      messages: [mail({ from: 'Ann <ann@colleague.example>', subject: 'Coffee next week?' })],
      model: () => new OfflineModel(),
    });
    const gone = await sendMessage(fx.deps, undefined, 'delete the workflow inbox-triage-3');
    expect(gone.text).toMatch(/There is no workflow "inbox-triage-3"/);
    expect(gone.confirm).toBeUndefined();
    expect((await getChat(fx.store, gone.chat_id)).draft).toBeNull();

    const asked = await sendMessage(fx.deps, gone.chat_id, 'delete the workflow inbox');
    expect(asked.confirm).toMatchObject({ tool: 'delete_workflow' });
    expect(asked.confirm?.card?.workflow_id).toBe('inbox');
    expect(await fx.store.get('workflows', 'inbox')).toBeTruthy();
    expect((await getChat(fx.store, gone.chat_id)).draft).toBeNull();
    const no = await sendMessage(fx.deps, gone.chat_id, 'no');
    expect(no.text).toMatch(/^Cancelled: delete workflow/);
    expect(await fx.store.get('workflows', 'inbox')).toBeTruthy();

    const none = await sendMessage(fx.deps, gone.chat_id, 'what rules have you learned?');
    expect(none.text).toMatch(/^I have no rules yet/);
    await sendMessage(fx.deps, gone.chat_id, 'Always archive mail from news@digest.example');
    await sendMessage(fx.deps, gone.chat_id, 'yes');
    const rule = (await listRules(fx.store))[0]!;
    const rules = await sendMessage(fx.deps, gone.chat_id, 'what rules have you learned?');
    expect(rules.text).toContain(`mail from news@digest.example → archive (${rule.id}; you set it`);
    expect(rules.confirm).toBeUndefined();

    const run = await startRun(fx.deps, 'inbox', { kind: 'manual', detail: null });
    const coffee = (await listPending(fx.store)).find((d) => d.subject === 'Coffee next week?');
    expect(run.status).toBe('waiting');
    const why = await sendMessage(fx.deps, gone.chat_id, 'why did you ask me about Coffee next week?');
    expect(why.text).toContain(`I asked about "Coffee next week?" from ${coffee!.sender} (${coffee!.id})`);
    expect(why.text).toContain(`because of ${coffee!.reason.replace(/_/g, ' ')}`);
    expect(why.text).toContain(`My reasoning then: ${coffee!.reasoning}`);
    expect(why.confirm).toBeUndefined();

    const offline = await sendMessage(fx.deps, gone.chat_id, 'change my password');
    expect(offline.text).toMatch(
      /^I can't do that offline; here is the command: `handoff credentials set NAME`/,
    );
    expect((await getChat(fx.store, gone.chat_id)).draft).toBeNull();
  });
});

describe('the schedule in words', () => {
  it("says the time in the profile's time zone, the zone the schedule runs in", async () => {
    fx = await engineFixture({ messages: [], model: () => new OfflineModel() });
    await saveProfile(fx.store, { time_zone: 'Europe/Helsinki' });
    const drafted = await sendMessage(
      fx.deps,
      undefined,
      `archive newsletters from ${fx.maildir} every weekday at 8`,
    );
    expect(drafted.text).toContain('every weekday at 08:00 (Europe/Helsinki), cron(0 8 ? * MON-FRI *)');
    expect(drafted.confirm?.card?.schedule).toBe('every weekday at 08:00 (Europe/Helsinki)');
    const later = await sendMessage(fx.deps, drafted.chat_id, 'make it 9am');
    expect(later.text).toContain(
      'every weekday at 08:00 (Europe/Helsinki) → every weekday at 09:00 (Europe/Helsinki)',
    );
  });
});

describe('the Operator over saved workflows (offline model)', () => {
  it('shows, pauses, resumes and renames a workflow at once (each reversible), and says what was done yesterday from the audit', async () => {
    fx = await engineFixture({ messages: [], model: () => new OfflineModel() });
    // Where schedules live apart from the store (AWS), every change is told.
    const told: string[] = [];
    fx.deps.onWorkflowChange = async (workflowId, change) => void told.push(`${change} ${workflowId}`);
    const drafted = await sendMessage(
      fx.deps,
      undefined,
      `archive newsletters from ${fx.maildir} every day at 7`,
    );
    const chat = drafted.chat_id;
    expect(told).toEqual([]); // a draft is not a workflow
    const saved = await sendMessage(fx.deps, chat, 'yes');
    const id = saved.workflow_id!;
    expect(told).toEqual([`saved ${id}`]);
    expect(saved.text).toMatch(/Say "run it now"/);

    const shown = await sendMessage(fx.deps, chat, `show ${id}`);
    expect(shown.text).toContain('Schedule: every day at 07:00 (UTC)');
    expect(shown.text).toContain('State: active');

    const paused = await sendMessage(fx.deps, chat, `pause ${id}`);
    expect(paused.text).toBe(`Paused ${id}: it does not fire until you resume it.`);
    expect(paused.confirm).toBeUndefined();
    expect((await listSchedules(fx.store)).find((s) => s.workflow_id === id)?.paused).toBe(true);
    const resumed = await sendMessage(fx.deps, chat, `resume ${id}`);
    expect(resumed.text).toMatch(new RegExp(`^Resumed ${id}; next: \\d{4}-\\d{2}-\\d{2} 07:00 UTC`));
    expect((await listSchedules(fx.store)).find((s) => s.workflow_id === id)?.paused).toBe(false);
    const manual = await sendMessage(fx.deps, chat, 'pause inbox');
    expect(manual.text).toMatch(/has no schedule/);

    const renamed = await sendMessage(fx.deps, chat, `rename ${id} to Morning newsletters`);
    expect(renamed.text).toMatch(new RegExp(`^Renamed ${id}: ".*" → "Morning newsletters"\\.$`));
    expect(await fx.store.get('workflows', id)).toMatchObject({ name: 'Morning newsletters' });
    expect(told).toEqual([`saved ${id}`, `saved ${id}`, `saved ${id}`, `saved ${id}`]); // save, pause, resume, rename
    await sendMessage(fx.deps, chat, `delete the workflow ${id}`);
    expect((await sendMessage(fx.deps, chat, 'yes')).text).toBe(`Deleted workflow ${id}.`);
    expect(told.at(-1)).toBe(`removed ${id}`);

    const yesterday = new Date(Date.now() - 86_400_000).toISOString();
    // A run of yesterday (its audit is read by the run's key) and what it did.
    await fx.store.put('runs', {
      id: 'run_yesterday',
      workflow_id: id,
      status: 'completed',
      trigger: { kind: 'manual', detail: null },
      counts: { ...EMPTY_COUNTS, acted: 1 },
      interrupt_id: null,
      dispatch: null,
      snapshot: null,
      error: null,
      owner: null,
      started_at: yesterday,
      finished_at: yesterday,
      keyed: true,
      version: 1,
    });
    await fx.store.put('audit', {
      id: `${runAuditPrefix('run_yesterday')}1`,
      run_id: 'run_yesterday',
      workflow_id: id,
      item_id: 'm1',
      subject: 'Weekly digest',
      outcome: 'acted',
      action: 'archive',
      decided_by: 'model',
      confidence: 0.95,
      reasoning: 'newsletter',
      note: null,
      rule_id: null,
      detail: null,
      at: yesterday,
    });
    const day = await sendMessage(fx.deps, chat, 'what did you do yesterday?');
    expect(day.text).toMatch(/^On \d{4}-\d{2}-\d{2} \(UTC\): 1 run; archive 1\./);
    expect(day.text).toContain(`- archive "Weekly digest" (on its own, ${id})`);
    const today = await sendMessage(fx.deps, chat, 'what did you do today?');
    expect(today.text).toMatch(/^Nothing ran on/);
  });
});

describe('a save that fails', () => {
  it('keeps the draft to be changed and asked again; nothing is saved', async () => {
    fx = await engineFixture({ messages: [], model: () => new OfflineModel() });
    const drafted = await sendMessage(
      fx.deps,
      undefined,
      `archive newsletters from ${fx.maildir} every day at 7`,
    );
    const chat = drafted.chat_id;
    // A skill the workspace does not have (say it was deleted after the card was shown).
    await updateChat(fx.store, chat, (c) => {
      const config = { ...(c.confirm!.input.config as Record<string, unknown>), skills: ['tone-of-voice'] };
      return { confirm: { ...c.confirm!, input: { config } }, draft: config };
    });
    const refused = await sendMessage(fx.deps, chat, 'yes');
    expect(refused.text).toMatch(/^That could not be done: skills\.0: no skill "tone-of-voice"/);
    expect(await fx.store.get('workflows', drafted.confirm!.card!.workflow_id)).toBeUndefined();
    expect((await getChat(fx.store, chat)).draft).toMatchObject({ skills: ['tone-of-voice'] });
  });
});
