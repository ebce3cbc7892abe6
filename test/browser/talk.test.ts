/**
 * The voice journey with no network, in real headless Chromium: espeak-ng speaks an
 * answer into a 16 kHz WAV that Chromium takes as its microphone; on /talk the person
 * holds Talk (Space); the page records through its AudioWorklet, the local provider
 * (pocketsphinx) hears it, and the decision is answered through decide. The rest are
 * answered with the keyboard, and the run resumes and completes while the graph fills in.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { speakToWav } from '../../bench/speech-fixture.ts';
import { listAudit } from '../../shared/audit/audit.ts';
import { getDecision, listPending } from '../../shared/runs/decision-repository.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { decodeWav, encodeWav } from '../../shared/speech/wav.ts';
import { CHROMIUM, HEADLESS_FLAGS } from '../support/chromium.ts';
import { A11yChecker, cssValue, screenshot, startServer, watchCsp, type Served } from './support.ts';
import { pageOfChats } from '../../shared/chats/chat-list.ts';
import { simpleParser } from 'mailparser';
import { getWorkflow } from '../../shared/workflows/repository.ts';

let served: Served;
let dir: string;
let runId: string;
const browsers: Browser[] = [];

/** `text` spoken by espeak-ng, with silence before (the microphone opening) and after (the file loops). */
async function microphoneFile(name: string, text: string): Promise<string> {
  const speech = decodeWav(await speakToWav(text, 'en-us', 160));
  const file = path.join(dir, `${name}.wav`);
  await fs.writeFile(
    file,
    encodeWav(Buffer.concat([Buffer.alloc(16000), speech.pcm, Buffer.alloc(32000 * 4)])),
  );
  return file;
}

/** Chromium whose microphone says `text`. */
async function speaking(name: string, text: string): Promise<Page> {
  const file = await microphoneFile(name, text);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      ...HEADLESS_FLAGS,
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${file}`,
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
  browsers.push(browser);
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(`${served.url}/talk`);
  return page;
}

/** Holds Talk with the keyboard for as long as the answer takes, then waits for the reply. */
async function holdTalk(page: Page): Promise<string> {
  const before = await page.locator('[data-talk-status]').textContent();
  await page.locator('[data-talk-button]').focus();
  await page.keyboard.down(' ');
  await page.locator('[data-recording="true"]').waitFor();
  await page.waitForTimeout(2600);
  await page.keyboard.up(' ');
  await page.waitForFunction(
    (previous) => {
      type Doc = { querySelector(s: string): { textContent: string | null } | null };
      const text =
        (globalThis as unknown as { document: Doc }).document.querySelector('[data-talk-status]')
          ?.textContent ?? '';
      return text !== previous && !/Listening|Thinking/.test(text);
    },
    before,
    { timeout: 20_000 },
  );
  return (await page.locator('[data-talk-status]').textContent()) ?? '';
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-talk-'));
  served = await startServer();
  runId = (await startRun(served.engine, 'inbox-triage', { kind: 'manual', detail: null })).id;
}, 60_000);

afterAll(async () => {
  for (const browser of browsers) await browser.close();
  await served?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('Talk, by voice', () => {
  it('hears "archive it" from the microphone and answers the first decision archive', async () => {
    const first = (await listPending(served.engine.store))[0]!;
    const page = await speaking('archive', 'archive it');
    const problems = watchCsp(page);
    const card = page.locator('[data-decision]:not([hidden])');
    expect(await card.getAttribute('data-decision')).toBe(first.id);
    expect(await cssValue(card.locator('.pending'), 'borderTopColor')).toBe('rgb(245, 158, 11)'); // amber: waiting
    expect(await page.locator('[data-node="executor"]').getAttribute('class')).toContain('node-paused');

    await page.locator('[data-read]').focus();
    await page.keyboard.press('Enter'); // "Read it to me": the question, spoken through /api/speech/speak
    await page.locator('[data-talk][data-spoke]').waitFor();

    const reply = await holdTalk(page);
    expect(reply).toMatch(/^Done: archived/);
    expect(await page.locator('[data-talk-heard]').textContent()).toContain('archive it');
    expect((await getDecision(served.engine.store, first.id)).answer).toMatchObject({
      action: 'archive',
      by: 'human',
    });
    expect(await page.locator(`[data-decision="${first.id}"]`).count()).toBe(0); // on to the next one
    expect(problems).toEqual([]);
  }, 60_000);

  it('hears "leave it" as skip', async () => {
    const next = (await listPending(served.engine.store))[0]!;
    const page = await speaking('leave', 'leave it');
    expect(await holdTalk(page)).toMatch(/^Done: left alone/);
    expect((await getDecision(served.engine.store, next.id)).answer).toMatchObject({
      action: 'skip',
      by: 'human',
    });
    await screenshot(page, 'talk-1280');
  }, 60_000);

  it('says so, and decides nothing, when Talk is released at once (an empty recording)', async () => {
    const waiting = await listPending(served.engine.store);
    const page = await speaking('empty', 'archive it');
    await page.locator('[data-talk-button]').focus();
    await page.keyboard.down(' ');
    await page.keyboard.up(' ');
    await page.waitForFunction(() => {
      type Doc = { querySelector(s: string): { textContent: string | null } | null };
      const text =
        (globalThis as unknown as { document: Doc }).document.querySelector('[data-talk-status]')
          ?.textContent ?? '';
      return /empty|did not catch/.test(text);
    });
    expect((await listPending(served.engine.store)).map((d) => d.id)).toEqual(waiting.map((d) => d.id));
  }, 60_000);

  it('answers nothing when the microphone says an unrelated sentence', async () => {
    const waiting = await listPending(served.engine.store);
    const page = await speaking('unrelated', 'remind me to call my sister');
    expect(await holdTalk(page)).toMatch(/nothing was done/);
    expect((await listPending(served.engine.store)).map((d) => d.id)).toEqual(waiting.map((d) => d.id));
  }, 60_000);
});

describe('Talk, with the keyboard', () => {
  it('shows a drafted reply in its box; the edited text is what the Draft reply button saves', async () => {
    const page = await speaking('edit', 'leave it');
    const current = page.locator('[data-decision]:not([hidden])');
    const pending = await listPending(served.engine.store);
    const drafted = pending.filter((d) => d.drafts?.some((w) => w.action === 'draft_reply'));
    expect(drafted.length).toBeGreaterThan(0);
    // On to a question whose reply is drafted ("Next question" as the person would).
    for (let i = 0; i < pending.length; i++) {
      if ((await current.locator('textarea[name="body:draft_reply"]').count()) > 0) break;
      await page.locator('[data-next]').click();
    }
    const id = (await current.getAttribute('data-decision'))!;
    const question = drafted.find((d) => d.id === id)!;
    expect(question).toBeDefined();
    const box = current.locator('textarea[name="body:draft_reply"]');
    expect(await box.inputValue()).toBe(question.drafts!.find((w) => w.action === 'draft_reply')!.body);
    if (!(await box.isVisible()))
      await current.locator('details.draft summary', { hasText: 'draft reply' }).click();
    const edited = 'Edited on Talk: see you Thursday.';
    await box.fill(edited);
    await current.locator('[data-answer="draft_reply"]').click();
    await page.locator(`[data-decision="${id}"]`).waitFor({ state: 'detached' });
    expect((await getDecision(served.engine.store, id)).answer).toMatchObject({
      action: 'draft_reply',
      body: edited,
    });

    // Carried out at once (other questions still wait): the saved reply is the edited text.
    const source = (await getWorkflow(served.engine.store, question.workflow_id)).source as { path: string };
    const drafts = path.join(source.path, '.Drafts', 'cur');
    const mails = await Promise.all(
      (await fs.readdir(drafts)).map(async (n) => simpleParser(await fs.readFile(path.join(drafts, n)))),
    );
    const reply = mails.find((m) => m.inReplyTo === question.item_id);
    expect(reply?.text?.replace(/\r\n/g, '\n').startsWith(edited)).toBe(true);
  }, 60_000);

  it('answers the rest with buttons; the run resumes, the graph fills in, and the audit names the answers', async () => {
    const page = await speaking('keys', 'leave it');
    let left = (await listPending(served.engine.store)).length;
    expect(left).toBeGreaterThan(0);
    while (left > 0) {
      const id = await page.locator('[data-decision]:not([hidden])').getAttribute('data-decision');
      await page.locator(`[data-decision="${id}"] [data-answer="skip"]`).focus();
      await page.keyboard.press('Enter');
      await page.locator(`[data-decision="${id}"]`).waitFor({ state: 'detached' });
      left -= 1;
    }
    expect(await page.locator('[data-talk-count]').textContent()).toContain('Nothing is waiting');
    await page.locator('[data-node="completer"].node-done').waitFor({ timeout: 20_000 });
    expect(await page.locator('[data-node="executor"] [data-tools] li').count()).toBeGreaterThan(0);
    expect((await getRun(served.engine.store, runId)).status).toBe('completed');

    const audit = await listAudit(served.engine.store, { runId });
    const human = audit.filter((a) => a.decided_by === 'human');
    expect(human.find((a) => a.action === 'archive')).toBeDefined();
    expect(human.filter((a) => a.outcome === 'declined').length).toBeGreaterThanOrEqual(2);
    expect(
      await new A11yChecker(browsers[0]!).seriousViolations(`${served.url}/talk`, page.context()),
    ).toEqual([]);
  }, 90_000);

  it('sends what is said to the workspace assistant when no decision waits, and shows its answer', async () => {
    const before = (await pageOfChats(served.engine.store, { limit: 500 })).items;
    const page = await speaking('free', 'archive it');
    await page.locator('[data-assistant]').waitFor();
    // The assistant asks its one clarifying question: no source was named.
    expect(await holdTalk(page)).toMatch(/^Which mailbox should it read/);
    const chats = (await pageOfChats(served.engine.store, { limit: 500 })).items;
    expect(chats).toHaveLength(before.length + 1);
  }, 60_000);
});
