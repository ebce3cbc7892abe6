import net from 'node:net';
import { Message, TextBlock, type Model } from '@strands-agents/sdk';
import { afterEach, describe, expect, it } from '@jest/globals';
import { runChecks } from '../../../shared/doctor/check.ts';
import { modelCheck } from '../../../shared/doctor/checks.ts';
import type { ModelEvent } from '../../../shared/models/model-events.ts';
import { modelFactory, type ModelFactoryOptions } from '../../../shared/models/provider.ts';
import { classifyProviderError } from '../../../shared/models/provider-errors.ts';
import { openAIServer, type ScriptedServer } from './support/wire-servers.ts';

let server: ScriptedServer | undefined;
let proxy: net.Server | undefined;
afterEach(async () => {
  await server?.close();
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
  server = undefined;
  proxy = undefined;
});

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Counts every sleep the resilient provider asks for: a retry always sleeps first. */
function countedSleeps() {
  const slept: number[] = [];
  const resilience: ModelFactoryOptions['resilience'] = {
    sleep: async (ms) => void slept.push(ms),
    baseDelayMs: 10,
  };
  return { slept, resilience };
}

const ENVS = {
  openai: (url: string) => ({
    HANDOFF_MODEL_PROVIDER: 'openai',
    HANDOFF_MODEL_ID: 'local-llama',
    OPENAI_BASE_URL: `${url}/v1`,
  }),
  anthropic: (url: string) => ({
    HANDOFF_MODEL_PROVIDER: 'anthropic',
    HANDOFF_MODEL_ID: 'claude-test',
    ANTHROPIC_API_KEY: 'k',
    ANTHROPIC_BASE_URL: url,
  }),
  groq: (url: string) => ({ HANDOFF_MODEL_PROVIDER: 'groq', GROQ_API_KEY: 'k', GROQ_BASE_URL: `${url}/v1` }),
};

async function turn(model: Model): Promise<void> {
  for await (const _ of model.stream([new Message({ role: 'user', content: [new TextBlock('Hi')] })]));
}

describe('a refused connection (nothing listening)', () => {
  for (const [provider, env] of Object.entries(ENVS))
    it(`${provider}: fails at once, naming host:port and "refused", without a retry`, async () => {
      const port = await closedPort();
      const { slept, resilience } = countedSleeps();
      const events: ModelEvent[] = [];
      const model = await modelFactory(env(`http://127.0.0.1:${port}`), { resilience })('primary', {
        onEvent: (e) => events.push(e),
      });

      const started = performance.now();
      const failure = await turn(model).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      const ms = performance.now() - started;

      expect(failure?.message).toContain(`${provider}: Connection refused by 127.0.0.1:${port}`);
      expect(ms).toBeLessThan(1_500);
      expect(slept).toEqual([]);
      expect(events.map((e) => e.kind)).toEqual(['gave_up']);
      expect(events[0]).toMatchObject({ reason: 'connection', attempts: 1 });
    });

  it('is what `handoff doctor` says about the model, in well under a second', async () => {
    const port = await closedPort();
    const factory = modelFactory(ENVS.openai(`http://127.0.0.1:${port}`));

    const started = performance.now();
    const [result] = await runChecks([modelCheck('openai', () => factory('primary'))]);

    expect(performance.now() - started).toBeLessThan(1_500);
    expect(result).toMatchObject({ check: 'model (openai)', ok: false });
    expect(result).toHaveProperty(
      'reason',
      expect.stringMatching(
        new RegExp(`^openai: Connection refused by 127\\.0\\.0\\.1:${port}: nothing is listening`),
      ),
    );
  });

  it('is told apart from a dropped or timed-out connection, which is still retried', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
      code: 'ECONNREFUSED',
      address: '127.0.0.1',
      port: 9,
    });
    const viaFetch = new Error('Connection error.', {
      cause: new TypeError('fetch failed', { cause: refused }),
    });
    expect(classifyProviderError(Object.assign(viaFetch, { name: 'APIConnectionError' }))).toMatchObject({
      kind: 'refused',
      endpoint: '127.0.0.1:9',
    });
    // `localhost`: Node tries ::1 and 127.0.0.1 and joins both refusals.
    const both = Object.assign(
      new AggregateError(
        [
          Object.assign(new Error('connect ECONNREFUSED ::1:9'), {
            code: 'ECONNREFUSED',
            address: '::1',
            port: 9,
          }),
          refused,
        ],
        '',
      ),
      { code: 'ECONNREFUSED' },
    );
    expect(classifyProviderError(both)).toMatchObject({ kind: 'refused', endpoint: '[::1]:9' });

    const timedOut = Object.assign(new Error('Request timed out.'), { name: 'APIConnectionTimeoutError' });
    expect(classifyProviderError(timedOut).kind).toBe('connection');
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(classifyProviderError(new Error('Connection error.', { cause: reset })).kind).toBe('connection');
  });

  it('a dropped connection is retried, and the turn carries on', async () => {
    const local = await openAIServer({ policy: () => ({ text: 'OK' }) });
    server = local;
    // A real TCP hop in front of the server that hangs up on the first connection.
    let connections = 0;
    const target = Number(new URL(local.url).port);
    proxy = net.createServer((socket) => {
      connections += 1;
      if (connections === 1) {
        socket.destroy();
        return;
      }
      const upstream = net.connect(target, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as net.AddressInfo;
    const { slept, resilience } = countedSleeps();
    const events: ModelEvent[] = [];
    const model = await modelFactory(ENVS.openai(`http://127.0.0.1:${port}`), { resilience })('primary', {
      onEvent: (e) => events.push(e),
    });

    await turn(model);

    expect(slept).toHaveLength(1);
    expect(events).toMatchObject([{ kind: 'retried', reason: 'connection', attempt: 1 }]);
    expect(local.requests).toHaveLength(1);
  });
});
