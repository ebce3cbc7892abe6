/**
 * Every page that shows an answer names the action taken in words, and every page that
 * shows a run's counts shows the one outcome sentence (whose parts add up).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { decide } from '../../shared/runs/decide.ts';
import { getDecision, listPending } from '../../shared/runs/decision-repository.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { describeCounts } from '../../shared/runs/counts.ts';
import { actionDone } from '../../shared/runs/views.ts';
import { makeHarness, type Harness } from './support.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

/** The page's text as a person reads it: tags dropped, entities decoded, spaces collapsed. */
async function text(path: string): Promise<string> {
  const res = await h.app.request(`http://127.0.0.1:3000${path}`);
  expect(res.status).toBe(200);
  return (await res.text())
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

describe('the words on the pages', () => {
  it('names an answer by the action taken: the suggestion, or left alone', async () => {
    h = await makeHarness();
    const run = await startRun(h.engine, h.workflow.id, { kind: 'manual', detail: null });
    const [suggested, skipped] = await listPending(h.engine.store);
    await decide(h.engine, suggested!.id, 'approve_suggested', 'fine');
    await decide(h.engine, skipped!.id, 'skip', null);
    const taken = `${actionDone(suggested!.suggested_action)} — the agent's suggestion`;

    const activity = await text(`/activity?answered=${suggested!.id}`);
    expect(activity).toContain(`Recorded for “${suggested!.subject}”: ${taken}.`);
    expect(activity).toContain(`${skipped!.subject} — Left alone`);
    expect(await text(`/decide/${suggested!.id}`)).toContain(`${taken} , answered`);
    expect(await text(`/decide/${skipped!.id}?answered=${skipped!.id}`)).toContain(
      `Recorded for “${skipped!.subject}”: Left alone.`,
    );
    const inspector = await text(`/runs/${run.id}?answered=${suggested!.id}`);
    expect(inspector).toContain(`; ${taken} “fine”`);
    const questions = inspector.slice(0, inspector.indexOf(' Trace: '));
    for (const page of [activity, questions]) expect(page).not.toMatch(/approve.suggested/);
    expect(inspector).toContain(`decided ${taken}: ${suggested!.subject}`); // the trace's feed row
    expect((await getDecision(h.engine.store, suggested!.id)).answer?.action).toBe('approve_suggested');
  });

  it('shows one outcome sentence wherever a run’s counts appear', async () => {
    h = await makeHarness();
    const started = await startRun(h.engine, h.workflow.id, { kind: 'manual', detail: null });
    for (const d of await listPending(h.engine.store))
      await decide(h.engine, d.id, 'approve_suggested', null);
    const run = await getRun(h.engine.store, started.id);
    expect(run.status).toBe('completed');
    const sentence = describeCounts(run.counts);
    expect(sentence).toMatch(/^\d+ acted \(\d+ confident, .*\d+ by you\), \d+ asked, \d+ left alone/);
    for (const path of ['/', '/runs', `/runs/${run.id}`]) expect(await text(path)).toContain(sentence);
    expect(await text('/')).toContain(`Today: ${sentence}.`);
  });
});
