/**
 * Model work off the request path that fails is never silent. Work the agent function cannot
 * do at all ends, after Lambda's retries, in the dead-letter queue, and CloudWatch's alarms
 * (the function's errors, the queue's messages) publish to the topic. On a Bedrock deployment,
 * learning that Bedrock refuses is kept with its reason (what the Memory page and
 * `handoff doctor` show) and learned by the sweeper's retry once Bedrock answers again.
 */
import { expect, it } from '@jest/globals';
import type { Dovecot } from '../../support/dovecot.ts';
import { alarmSubjects, imapWorkflowYaml, MANUAL, runNow, save, type Variant } from './expect.ts';
import { unsureMessage } from './failures.ts';

export function agentFailureJourneys(v: Variant, failbox: () => Dovecot): void {
  it('an assistant turn the agent function cannot take ends in the dead-letter queue, and the alarms tell the topic', async () => {
    const h = v.h();
    const { chat_id } = (await (await h.api('POST', '/admin/api/chats', '{}')).json()) as { chat_id: string };
    const from = h.gateway.published.length;
    h.gateway.outages.add('agent:dynamodb');
    try {
      const sent = await h.api(
        'POST',
        `/admin/api/chats/${chat_id}/messages`,
        JSON.stringify({ message: 'hello' }),
      );
      expect(sent.status).toBe(202);
      await h.cloud.drain();
    } finally {
      h.gateway.outages.delete('agent:dynamodb');
    }
    const failed = h.cloud.failures.splice(0);
    expect(failed.map((f) => f.fn)).toEqual(['agent']);
    expect(failed[0]!.destination).toMatch(/^arn:aws:sqs:/);
    expect(h.cloud.deadLetters.at(-1)).toMatchObject({
      requestPayload: { 'detail-type': 'handoff.chat-turn', detail: { chat_id } },
      responsePayload: { errorMessage: expect.stringContaining('dynamodb is down') },
    });
    const stack = h.deployment.stackName;
    expect(alarmSubjects(h, from).sort()).toEqual([`${stack}-agent-errors`, `${stack}-dead-letters`]);
  });

  if (v.modelProvider === 'bedrock')
    it('learning Bedrock refuses (no access to the model) is kept with its reason, retried by Lambda, then learned by the sweeper once Bedrock answers', async () => {
      const h = v.h();
      await failbox().append([unsureMessage('learning')]);
      await save(h, 'learning-box', imapWorkflowYaml(failbox(), 'learning-box', 'MAIL_PASSWORD', MANUAL));
      const runId = await runNow(h, 'learning-box');
      await h.cloud.drain();
      const [question] = (
        (await (await h.api('GET', '/admin/api/pending')).json()) as {
          decision_id: string;
          run_id: string;
        }[]
      ).filter((d) => d.run_id === runId);
      // What Bedrock answers in a region where the account was not given the model.
      const denied = "You don't have access to the model with the specified model ID.";
      h.gateway.errors.set('agent:bedrock', { status: 403, type: 'AccessDeniedException', message: denied });
      try {
        const answer = JSON.stringify({
          action: 'archive',
          note: 'anything from partner.example can be archived',
        });
        const res = await h.api(
          'POST',
          `/admin/api/decisions/${encodeURIComponent(question!.decision_id)}`,
          answer,
        );
        expect(res.status).toBe(200);
        await h.cloud.drain();
      } finally {
        h.gateway.errors.delete('agent:bedrock');
      }
      expect(h.cloud.failures.splice(0).map((f) => f.fn)).toEqual(['agent']);
      expect(await h.store.get('learning_failures', question!.decision_id)).toMatchObject({
        attempts: 3,
        error: expect.stringContaining(denied),
      });
      const rules = (await h.store.list('rules')).length;
      // Five minutes on, the sweeper sends it again; the agent function learns from it now.
      expect(await h.cloud.tick('sweeper', new Date(Date.now() + 6 * 60_000))).toMatchObject({ ok: true });
      expect(
        h.gateway.events.filter((e) => e.by === 'sweeper' && e.detail.decision_id === question!.decision_id),
      ).toHaveLength(1);
      await h.cloud.drain();
      expect(await h.store.get('learning_failures', question!.decision_id)).toBeUndefined();
      expect((await h.store.list('rules')).length).toBe(rules + 1);
    });
}
