/** The offline model on pull-request items: sure only of a bot's version bump or a small docs change. */
import { describe, expect, it } from '@jest/globals';
import { classify, readInstructions, type ItemView } from '../../shared/models/offline/classify.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import { readTemplate } from '../../shared/workflows/templates.ts';

const REVIEW = 'github__create_and_submit_pull_request_review';
const LABEL = 'github__update_issue';

const pr = (over: Partial<ItemView>): ItemView => ({
  id: 'o/r#1@abc1234',
  from: 'dana-dev@users.noreply.github.com',
  name: 'dana-dev',
  subject: 'Retry uploads on timeout',
  snippet: 'Retry uploads on timeout Uploads now retry. 6 changed files, +120 -30',
  hints: ['pull-request'],
  ...over,
});

describe('the offline model reading pull requests with the PR review template', () => {
  const propose = async (item: ItemView) => {
    const w = parseWorkflow(await readTemplate('pr-review'), 'pr-review.yaml');
    const actions = w.actions.map((a) => a.name);
    return classify(item, readInstructions(w.instructions, actions), actions[0]!);
  };

  it('labels a version bump a bot opened, above the 0.8 threshold', async () => {
    const bump = pr({
      name: 'dependabot[bot]',
      subject: 'Bump lodash from 4.17.20 to 4.17.21',
      snippet: 'Bump lodash from 4.17.20 to 4.17.21 Bumps lodash. 1 changed files, +3 -3',
      hints: ['pull-request', 'bot-author', 'small-change'],
    });
    const proposal = await propose(bump);
    expect(proposal.action).toBe(LABEL);
    expect(proposal.confidence).toBeGreaterThanOrEqual(0.8);
  });

  it('labels a small change titled docs:', async () => {
    const docs = pr({
      subject: 'docs: fix a typo in the README',
      snippet: 'docs: fix a typo in the README 1 changed files, +1 -1',
      hints: ['pull-request', 'small-change'],
    });
    expect(await propose(docs)).toMatchObject({ action: LABEL });
    expect((await propose(docs)).confidence).toBeGreaterThanOrEqual(0.8);
  });

  it.each([
    ['a feature', pr({})],
    [
      'a bump a person opened',
      pr({ subject: 'Bump lodash from 4.17.20 to 4.17.21', snippet: 'Bump lodash' }),
    ],
    [
      'a bot PR that is no version change',
      pr({
        name: 'renovate[bot]',
        subject: 'Update dependency config',
        hints: ['pull-request', 'bot-author'],
      }),
    ],
    [
      'a big change titled docs:',
      pr({ subject: 'docs: rewrite the guide', snippet: 'docs: rewrite the guide 40 changed files' }),
    ],
    ['a small change that says nothing of docs', pr({ hints: ['pull-request', 'small-change'] })],
  ])('asks about %s, below the threshold', async (_what, item) => {
    const proposal = await propose(item);
    expect(proposal.confidence).toBeLessThan(0.8);
    expect([REVIEW, LABEL]).toContain(proposal.action);
  });

  it('never files a pull request under a kind of mail', async () => {
    const bugFix = pr({ subject: 'Fix crash on save', snippet: 'Fix crash on save: the error was a bug' });
    const proposal = await propose(bugFix);
    expect(proposal).toMatchObject({ action: REVIEW });
    expect(proposal.confidence).toBeLessThan(0.8);
  });
});
