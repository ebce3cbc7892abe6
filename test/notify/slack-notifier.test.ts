import { afterEach, describe, expect, it } from '@jest/globals';
import { InvalidInputError } from '../../shared/errors/index.ts';
import { DecisionLinks } from '../../shared/links/decision-links.ts';
import { notifierFromEnv } from '../../shared/notify/from-env.ts';
import { ConsoleNotifier, NotifyError, type Notice } from '../../shared/notify/notifier.ts';
import { slackConfigFrom } from '../../shared/notify/slack-api.ts';
import { SlackNotifier } from '../../shared/notify/slack-notifier.ts';
import { slackServer, TOKEN, type SlackReply } from './slack-server.ts';

let server: Awaited<ReturnType<typeof slackServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const UI = 'http://127.0.0.1:3000';

async function askedNotice(): Promise<Notice & { kind: 'asked' }> {
  const links = new DecisionLinks({ get: async () => Buffer.alloc(32, 9) }, () => UI);
  const link = await links.urlFor('dec_abc', new Date(Date.now() + 3_600_000));
  return { kind: 'asked', runId: 'run_1', workflowName: 'Inbox <triage> & more', count: 3, link };
}

async function notifierAnswering(reply: SlackReply) {
  server = await slackServer(() => reply);
  return new SlackNotifier({ token: TOKEN, channel: 'C0123', baseUrl: server.baseUrl });
}

/** The NotifyError a promise rejects with, for assertions on its fields. */
async function notifyError(promise: Promise<unknown>): Promise<NotifyError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(NotifyError);
  return error as NotifyError;
}

describe('the Slack notifier', () => {
  it('posts the question notice with chat.postMessage, carrying the signed deep link', async () => {
    const notifier = await notifierAnswering({ body: { ok: true, channel: 'C0123', ts: '1.2' } });
    const notice = await askedNotice();
    await notifier.notify(notice);

    const [request] = server!.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/api/chat.postMessage' });
    expect(request!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(request!.body).toMatchObject({ channel: 'C0123', unfurl_links: false });
    const text = String(request!.body.text);
    expect(notice.link.startsWith(`${UI}/decide/dec_abc?token=`)).toBe(true);
    expect(text).toContain(`<${notice.link}|Answer the first one>`);
    expect(text).toContain('*Inbox &lt;triage&gt; &amp; more* paused with 3 questions for you (run run_1).');
  });

  it('posts the completion notice', async () => {
    const notifier = await notifierAnswering({ body: { ok: true } });
    await notifier.notify({
      kind: 'completed',
      runId: 'run_1',
      workflowName: 'Inbox',
      summary: 'Run finished: 3 acted.',
      link: `${UI}/runs/run_1`,
    });
    expect(server!.requests[0]!.body.text).toBe(
      `*Inbox*: Run finished: 3 acted. <${UI}/runs/run_1|See the run>.`,
    );
  });

  it('posts the failure notice with the reason and the run link', async () => {
    const notifier = await notifierAnswering({ body: { ok: true } });
    await notifier.notify({
      kind: 'failed',
      runId: 'run_1',
      workflowName: 'Inbox',
      reason: '/mail: not a Maildir <no new/>',
      link: `${UI}/runs/run_1`,
    });
    expect(server!.requests[0]!.body.text).toBe(
      `*Inbox*: run run_1 failed: /mail: not a Maildir &lt;no new/&gt; <${UI}/runs/run_1|See the run>.`,
    );
  });

  it('treats HTTP 200 with ok:false as a failure, with Slack’s reason and a fix, never the token', async () => {
    const notifier = await notifierAnswering({ body: { ok: false, error: 'not_in_channel' } });
    const error = await notifyError(notifier.notify(await askedNotice()));
    expect(error.channel).toBe('slack');
    expect(error.message).toBe(
      'could not notify via slack: chat.postMessage refused: not_in_channel (the bot is not in the channel; invite it (/invite @your-bot))',
    );
    expect(error.message).not.toContain(TOKEN);
  });

  it('fails visibly on HTTP 500, a rate limit, a body that is not JSON and an unreachable Slack', async () => {
    const cases: [SlackReply, RegExp][] = [
      [{ status: 500, body: { ok: false } }, /chat\.postMessage: Slack answered HTTP 500$/],
      [
        { status: 429, body: { ok: false }, headers: { 'retry-after': '30' } },
        /rate-limited the call \(retry after 30 s\)/,
      ],
      [{ body: '<html>proxy error</html>' }, /not JSON/],
    ];
    for (const [reply, reason] of cases) {
      const notifier = await notifierAnswering(reply);
      const error = await notifyError(notifier.notify(await askedNotice()));
      expect(error.reason).toMatch(reason);
      expect(error.message).not.toContain(TOKEN);
      expect(error.message).not.toContain('\n');
      await server!.close();
      server = undefined;
    }
    const closed = await slackServer(() => ({ body: {} }));
    await closed.close();
    const offline = new SlackNotifier({ token: TOKEN, channel: 'C0123', baseUrl: closed.baseUrl });
    const error = await notifyError(offline.notify(await askedNotice()));
    expect(error.reason).toMatch(/Slack is unreachable at http:\/\/127\.0\.0\.1:\d+\/api \(ECONNREFUSED\)/);
  });
});

describe('choosing the notifier from NOTIFY_CHANNEL', () => {
  it('console by default', () => {
    expect(notifierFromEnv({ NOTIFY_CHANNEL: 'console' })).toBeInstanceOf(ConsoleNotifier);
  });

  it('slack, configured from SLACK_*; a missing setting is one line naming it, never the token', async () => {
    server = await slackServer(() => ({ body: { ok: true } }));
    const source = {
      SLACK_BOT_TOKEN: TOKEN,
      SLACK_CHANNEL: 'C0123',
      SLACK_API_BASE_URL: `${server.baseUrl}/`,
    };
    await notifierFromEnv({ NOTIFY_CHANNEL: 'slack' }, { source }).notify(await askedNotice());
    expect(server.requests.map((r) => r.path)).toEqual(['/api/chat.postMessage']);

    expect(() => notifierFromEnv({ NOTIFY_CHANNEL: 'slack' }, { source: { SLACK_CHANNEL: 'C1' } })).toThrow(
      new InvalidInputError(
        'NOTIFY_CHANNEL=slack: SLACK_BOT_TOKEN is not set: give a bot token with the chat:write scope',
      ),
    );
    expect(() =>
      notifierFromEnv({ NOTIFY_CHANNEL: 'slack' }, { source: { SLACK_BOT_TOKEN: TOKEN } }),
    ).toThrow(/SLACK_CHANNEL is not set/);
    expect(() =>
      slackConfigFrom({ SLACK_BOT_TOKEN: TOKEN, SLACK_CHANNEL: 'C1', SLACK_API_BASE_URL: 'not a url' }),
    ).toThrow(/SLACK_API_BASE_URL must be a URL/);
    expect(slackConfigFrom({ SLACK_BOT_TOKEN: TOKEN, SLACK_CHANNEL: 'C1' }).baseUrl).toBe(
      'https://slack.com/api',
    );
  });

  it('sns through the notifier the host supplies; whatever it throws becomes a NotifyError', async () => {
    expect(() => notifierFromEnv({ NOTIFY_CHANNEL: 'sns' })).toThrow(/NOTIFY_TOPIC_ARN/);
    const sent: Notice[] = [];
    await notifierFromEnv(
      { NOTIFY_CHANNEL: 'sns' },
      { sns: () => ({ notify: async (n) => void sent.push(n) }) },
    ).notify(await askedNotice());
    expect(sent).toHaveLength(1);

    const failing = notifierFromEnv(
      { NOTIFY_CHANNEL: 'sns' },
      {
        sns: () => ({
          notify: async () => {
            const error = new Error('User is not authorized to perform: SNS:Publish\n on resource topic');
            error.name = 'AuthorizationErrorException';
            throw error;
          },
        }),
      },
    );
    const error = await notifyError(failing.notify(await askedNotice()));
    expect(error.message).toBe(
      'could not notify via sns: AuthorizationErrorException: User is not authorized to perform: SNS:Publish on resource topic',
    );
  });
});
