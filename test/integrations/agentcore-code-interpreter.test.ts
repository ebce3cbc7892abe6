/**
 * The AgentCore Code Interpreter entry. AgentCore cannot run here, so the service is
 * mocked at the SDK command level and every request sent is checked.
 */
import 'aws-sdk-client-mock-jest';
import {
  AccessDeniedException,
  BedrockAgentCoreClient,
  InvokeCodeInterpreterCommand,
  StartCodeInterpreterSessionCommand,
  StopCodeInterpreterSessionCommand,
  ThrottlingException,
  type CodeInterpreterStreamOutput,
} from '@aws-sdk/client-bedrock-agentcore';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { stubEnv, unstubAllEnvs } from '../support/env.ts';
import { inspectRun } from '../../shared/recorder/views.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import {
  connectAgentCore,
  MANAGED_CODE_INTERPRETER,
} from '../../shared/integrations/agentcore-code-interpreter.ts';
import { BUILTIN_ENTRIES, ServerEntrySchema, type ServerEntry } from '../../shared/integrations/servers.ts';
import { changesWorld, IntegrationError } from '../../shared/integrations/tool.ts';
import { engineFixture, mail, workflowYaml, type EngineFixture } from '../support/engine-fixture.ts';
import { executorScript, ScriptedModel } from '../support/scripted-model.ts';

const SESSION = '01JSESSION0000000000000000';
const ENV = { AWS_REGION: 'us-east-1', AWS_PROFILE: 'dev' };
const agentcore = mockClient(BedrockAgentCoreClient);

const builtin = (name: string): ServerEntry => BUILTIN_ENTRIES.find((e) => e.name === name)!;
const CODE = builtin('agentcore_code_interpreter');

/** The event stream InvokeCodeInterpreter answers with. */
async function* stream(
  ...events: CodeInterpreterStreamOutput[]
): AsyncGenerator<CodeInterpreterStreamOutput> {
  for (const event of events) yield event;
}

const text = (t: string, isError = false): CodeInterpreterStreamOutput => ({
  result: { content: [{ type: 'text', text: t }], isError },
});

function answering(...events: CodeInterpreterStreamOutput[]): void {
  agentcore
    .on(InvokeCodeInterpreterCommand)
    .callsFake(() => ({ sessionId: SESSION, stream: stream(...events) }));
}

beforeEach(() => {
  agentcore.reset();
  agentcore
    .on(StartCodeInterpreterSessionCommand)
    .callsFake((input: { codeInterpreterIdentifier: string }) => ({
      codeInterpreterIdentifier: input.codeInterpreterIdentifier,
      sessionId: SESSION,
      createdAt: new Date(),
    }));
  agentcore.on(StopCodeInterpreterSessionCommand).resolves({ sessionId: SESSION, lastUpdatedAt: new Date() });
});

describe('the AgentCore Code Interpreter entry', () => {
  it('starts a session on the AWS-managed interpreter and offers execute_code as a read-only tool', async () => {
    const connection = await connectAgentCore(CODE, { env: ENV, timeoutMs: 1_000 });

    expect(agentcore).toHaveReceivedCommandTimes(StartCodeInterpreterSessionCommand, 1);
    expect(agentcore).toHaveReceivedCommandWith(StartCodeInterpreterSessionCommand, {
      codeInterpreterIdentifier: 'aws.codeinterpreter.v1',
      name: expect.stringMatching(/^handoff-[0-9a-f]{8}$/),
    });
    expect(connection.tools.map((t) => t.name)).toEqual(['agentcore_code_interpreter__execute_code']);
    const [tool] = connection.tools;
    expect(tool!.hints).toEqual({ readOnlyHint: true, destructiveHint: false });
    expect(changesWorld(CODE, tool!)).toBe(false);
    await connection.close();
  });

  it('runs code in that session and returns what it printed', async () => {
    answering(text('6 * 7 =\n'), text('42\n'));
    const connection = await connectAgentCore(CODE, { env: ENV, timeoutMs: 1_000 });

    const output = await connection.tools[0]!.invoke({
      code: 'print("6 * 7 =")\nprint(6 * 7)',
      language: 'python',
    });

    expect(output).toEqual({ text: '6 * 7 =\n\n42\n', isError: false });
    expect(agentcore).toHaveReceivedCommandWith(InvokeCodeInterpreterCommand, {
      codeInterpreterIdentifier: MANAGED_CODE_INTERPRETER,
      sessionId: SESSION,
      name: 'executeCode',
      arguments: { code: 'print("6 * 7 =")\nprint(6 * 7)', language: 'python' },
    });
    await connection.close();
  });

  it('runs Python when no language is given, and refuses a call without code, sending nothing', async () => {
    answering(text('ok'));
    const connection = await connectAgentCore(CODE, { env: ENV, timeoutMs: 1_000 });
    const tool = connection.tools[0]!;

    await tool.invoke({ code: '1' });
    await expect(tool.invoke({ language: 'ruby' })).rejects.toThrow(IntegrationError);

    expect(agentcore).toHaveReceivedCommandTimes(InvokeCodeInterpreterCommand, 1);
    expect(agentcore).toHaveReceivedCommandWith(InvokeCodeInterpreterCommand, {
      arguments: { code: '1', language: 'python' },
    });
    await connection.close();
  });

  it('returns code that failed as an error output, with its traceback', async () => {
    answering(text('Traceback (most recent call last):\nZeroDivisionError: division by zero', true));
    const connection = await connectAgentCore(CODE, { env: ENV, timeoutMs: 1_000 });

    const output = await connection.tools[0]!.invoke({ code: '1 / 0', language: 'python' });

    expect(output).toEqual({
      text: 'Traceback (most recent call last):\nZeroDivisionError: division by zero',
      isError: true,
    });
    await connection.close();
  });

  it('fails a call whose stream carries a service exception, saying which', async () => {
    answering({ throttlingException: new ThrottlingException({ message: 'Rate exceeded', $metadata: {} }) });
    const connection = await connectAgentCore(CODE, { env: ENV, timeoutMs: 1_000 });

    await expect(connection.tools[0]!.invoke({ code: 'x', language: 'python' })).rejects.toThrow(
      'agentcore_code_interpreter: execute_code failed: throttlingException: Rate exceeded',
    );
    await connection.close();
  });

  it('gives up on a call that does not answer in time', async () => {
    agentcore.on(InvokeCodeInterpreterCommand).callsFake(() => ({
      sessionId: SESSION,
      stream: (async function* () {
        await new Promise(() => {});
      })(),
    }));
    const connection = await connectAgentCore(CODE, { env: ENV, timeoutMs: 50 });

    await expect(connection.tools[0]!.invoke({ code: 'while True: pass' })).rejects.toThrow(
      'agentcore_code_interpreter: execute_code failed: no answer within 50 ms',
    );
    await connection.close();
  });

  it('stops the session on close, once', async () => {
    const connection = await connectAgentCore(CODE, { env: ENV, timeoutMs: 1_000 });

    await connection.close();
    await connection.close();

    expect(agentcore).toHaveReceivedCommandTimes(StopCodeInterpreterSessionCommand, 1);
    expect(agentcore).toHaveReceivedCommandWith(StopCodeInterpreterSessionCommand, {
      codeInterpreterIdentifier: 'aws.codeinterpreter.v1',
      sessionId: SESSION,
    });
  });

  it('says why a session could not start', async () => {
    agentcore
      .on(StartCodeInterpreterSessionCommand)
      .rejects(new AccessDeniedException({ message: 'not allowed', $metadata: {} }));

    await expect(connectAgentCore(CODE, { env: ENV, timeoutMs: 1_000 })).rejects.toThrow(
      'agentcore_code_interpreter: could not start a session: AccessDeniedException: not allowed',
    );
    expect(agentcore).not.toHaveReceivedCommand(StopCodeInterpreterSessionCommand);
  });

  it('uses a custom interpreter when the entry names one, without vouching for it as read-only', async () => {
    const custom = ServerEntrySchema.parse({
      name: 'analysis',
      title: 'Analysis sandbox',
      transport: { kind: 'agentcore', service: 'code_interpreter', identifier: 'analysis-AbC123' },
    });
    answering(text('ok'));
    const connection = await connectAgentCore(custom, { env: ENV, timeoutMs: 1_000 });
    await connection.tools[0]!.invoke({ code: '1' });
    await connection.close();

    expect(agentcore).toHaveReceivedCommandWith(StartCodeInterpreterSessionCommand, {
      codeInterpreterIdentifier: 'analysis-AbC123',
    });
    expect(agentcore).toHaveReceivedCommandWith(InvokeCodeInterpreterCommand, {
      codeInterpreterIdentifier: 'analysis-AbC123',
    });
    expect(agentcore).toHaveReceivedCommandWith(StopCodeInterpreterSessionCommand, {
      codeInterpreterIdentifier: 'analysis-AbC123',
    });
    expect(changesWorld(custom, connection.tools[0]!)).toBe(true); // its network may reach out
    expect(changesWorld({ ...custom, reads: ['execute_code'] }, connection.tools[0]!)).toBe(false);
  });
});

describe('a run whose workflow lists the Code Interpreter', () => {
  let fixture: EngineFixture | undefined;
  afterEach(async () => {
    await fixture?.cleanup();
    fixture = undefined;
    unstubAllEnvs();
  });

  it('lets the model run code there, and stops the session when the run ends', async () => {
    for (const [name, value] of Object.entries(ENV)) stubEnv(name, value);
    answering(text('42\n'));
    const outputs: string[] = [];
    const archive = executorScript(() => ({ action: 'archive', confidence: 0.9, reasoning: 'computed it' }));
    fixture = await engineFixture({
      messages: [mail({ from: 'news@digest.example', subject: 'Weekly digest' })],
      model: () =>
        new ScriptedModel((results, input) => {
          if (results.length === 0)
            return {
              toolCalls: [
                {
                  name: 'agentcore_code_interpreter__execute_code',
                  input: { code: 'print(6 * 7)', language: 'python' },
                },
              ],
            };
          const ran = results.find((r) => r.name === 'agentcore_code_interpreter__execute_code');
          if (ran) {
            outputs.push(JSON.stringify(ran.result));
            return archive([], input);
          }
          return archive(results, input);
        }),
    });
    await saveWorkflow(
      fixture.store,
      parseWorkflow(
        workflowYaml(fixture.maildir, 'integrations: [agentcore_code_interpreter]').replace(
          'id: inbox',
          'id: counter',
        ),
        'counter.yaml',
      ),
    );

    const run = await startRun(fixture.deps, 'counter', { kind: 'manual', detail: null });

    expect(run.status).toBe('completed');
    expect(outputs).toEqual([expect.stringContaining('42')]);
    expect(agentcore).toHaveReceivedCommandWith(InvokeCodeInterpreterCommand, {
      sessionId: SESSION,
      name: 'executeCode',
      arguments: { code: 'print(6 * 7)', language: 'python' },
    });
    expect(agentcore).toHaveReceivedCommandTimes(StopCodeInterpreterSessionCommand, 1);
    expect(JSON.stringify(await inspectRun(fixture.store, run.id))).toContain('42');
    expect(await fixture.folder('.Archive')).toHaveLength(1);
  });
});
