/**
 * The bindings check (lib/bindings-check.ts) that every synth runs on every bundle: a need
 * the bundle reaches that the function is not bound to fails naming the function, the
 * binding and the module; a binding nothing reaches fails too (least privilege). Fast: the
 * logic over made-up modules and metafiles, and one real bundle for what Lambda never runs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { Metafile } from 'esbuild';
import { bindingProblems, declaredNeeds, reachedNeeds } from '../../lib/bindings-check.ts';
import { bundleEntry, handlerEntry, PROJECT_ROOT } from '../../lib/bundle.ts';
import { connectAgentCore } from '../../lib/bundle-stubs/agentcore.ts';
import type { ServerEntry } from '../../shared/integrations/servers.ts';
import { IntegrationError } from '../../shared/integrations/tool.ts';
import { FUNCTION_BINDINGS } from '../../shared/aws/deployment.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'handoff-bindings-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A metafile whose inputs are `files` (written under `root` with their sources). */
function bundleOf(files: Record<string, string>): Metafile {
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), source);
  }
  return {
    inputs: Object.fromEntries(Object.keys(files).map((f) => [f, { bytes: 1, imports: [] }])),
    outputs: {},
  } as unknown as Metafile;
}

describe('what a module declares', () => {
  it('is the string arguments of its needs(...) calls, not a comment or a string that mentions one', () => {
    const source = [
      "import { needs } from '../config/needs.ts';",
      "/** says needs('topic') in a comment */",
      "needs('credentialsKey'); // kms:Decrypt",
      "needs('table', 'bus');",
      'const text = "needs(\'linkKey\')";',
      "other.needs('models');",
    ].join('\n');
    expect(declaredNeeds(source)).toEqual(['credentialsKey', 'table', 'bus']);
  });

  it('refuses a name that is not a need, or one that is not a literal, naming the file', () => {
    expect(() => declaredNeeds("needs('kms');", 'shared/x.ts')).toThrow(
      "shared/x.ts: needs() takes the names in shared/config/needs.ts as string literals, got 'kms'",
    );
    expect(() => declaredNeeds('needs(which);', 'shared/y.ts')).toThrow(/^shared\/y\.ts: needs\(\) takes/);
  });
});

describe("a function's bindings against what its bundle reaches", () => {
  const reached = reachedNeeds(
    bundleOf({
      'shared/store.ts': "needs('table');",
      'shared/bus.ts': "needs('bus');",
      'shared/notice.ts': "needs('topic');",
      'shared/kms.ts': "needs('credentialsKey');",
      'node_modules/some-sdk/index.ts': "needs('models');", // never read: the project's modules declare
      'shared/plain.ts': 'export const x = 1;',
    }),
    root,
  );

  it('maps each need to the project modules that declare it', () => {
    expect(Object.fromEntries(reached)).toEqual({
      table: ['shared/store.ts'],
      bus: ['shared/bus.ts'],
      topic: ['shared/notice.ts'],
      credentialsKey: ['shared/kms.ts'],
    });
  });

  it('agree when every need is bound and every binding needed', () => {
    expect(bindingProblems('trigger', reached, ['table', 'bus', 'topic', 'credentialsKey'])).toEqual([]);
  });

  it('fail on a need reached but not bound, naming the function, the binding and the module', () => {
    expect(bindingProblems('trigger', reached, ['table', 'bus', 'topic'])).toEqual([
      "trigger reaches shared/kms.ts, which needs credentialsKey, but is not bound to it: add 'credentialsKey' to FUNCTION_BINDINGS.trigger (shared/aws/deployment.ts)",
    ]);
  });

  it('fail on a binding nothing reaches (least privilege)', () => {
    expect(
      bindingProblems('trigger', reached, ['table', 'bus', 'topic', 'credentialsKey', 'linkKey']),
    ).toEqual([
      'trigger is bound to linkKey, but nothing its bundle reaches needs it: remove it from FUNCTION_BINDINGS.trigger (least privilege)',
    ]);
  });

  it('take the read-only table for the table', () => {
    const reads = reachedNeeds(bundleOf({ 'shared/reads.ts': "needs('table');" }), root);
    expect(bindingProblems('schedule-sync', reads, ['tableRead'])).toEqual([]);
  });

  it('fail on a need the stack binds no function to (AgentCore), whatever the table says', () => {
    const agentcore = reachedNeeds(bundleOf({ 'shared/ac.ts': "needs('agentcore');" }), root);
    expect(bindingProblems('executor', agentcore, [])).toEqual([
      'executor reaches shared/ac.ts, which needs agentcore, and the stack binds no function to it: keep it out of the Lambda bundles (a stub in lib/bundle-stubs/aliases.ts)',
    ]);
  });
});

describe('a real bundle', () => {
  it("the executor's: agrees with its bindings, and carries the AgentCore stub, never the integrations themselves", async () => {
    const outdir = path.join(root, 'executor');
    const metafile = await bundleEntry(handlerEntry('executor'), outdir);
    const inputs = Object.keys(metafile.inputs);
    expect(inputs).toContain('lib/bundle-stubs/agentcore.ts');
    expect(inputs.filter((f) => /agentcore-(browser|code-interpreter)\.ts$/.test(f))).toEqual([]);
    expect(inputs.filter((f) => f.includes('node_modules/playwright-core/'))).toEqual([]);
    expect(bindingProblems('executor', reachedNeeds(metafile, PROJECT_ROOT))).toEqual([]);
    expect(FUNCTION_BINDINGS.executor).not.toContain('agentcore');
  });

  it('on Lambda, an AgentCore integration is refused with one line naming it', async () => {
    const entry = { name: 'browser' } as ServerEntry;
    await expect(connectAgentCore(entry)).rejects.toThrow(IntegrationError);
    await expect(connectAgentCore(entry)).rejects.toThrow(
      /^browser: AgentCore Browser and Code Interpreter integrations are not part of the AWS deployment; use them where Handoff runs locally$/,
    );
  });
});
