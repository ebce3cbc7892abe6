import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ESLINT = path.join(ROOT, 'node_modules/eslint/bin/eslint.js');

interface Message {
  ruleId: string | null;
  severity: number;
  message: string;
}

/** Lints `code` as if it were the file at `filePath` (relative to the repo), with the project's config, in a real eslint process. */
async function lint(filePath: string, code: string): Promise<Message[]> {
  const child = execFile(
    process.execPath,
    [ESLINT, '--format', 'json', '--stdin', '--stdin-filename', filePath],
    {
      cwd: ROOT,
    },
  );
  child.stdin!.end(code);
  const stdout = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', () => resolve(out));
  });
  return (JSON.parse(stdout) as { messages: Message[] }[])[0]!.messages;
}

/** Every no-cycle report for the files under `dir`, as "file: message". */
async function cyclesUnder(dir: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [ESLINT, '--format', 'json', dir], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((e: { stdout: string }) => ({ stdout: e.stdout }));
  return (JSON.parse(stdout) as { filePath: string; messages: Message[] }[]).flatMap((f) =>
    f.messages
      .filter((m) => m.ruleId === 'import-x/no-cycle')
      .map((m) => `${path.relative(ROOT, f.filePath)}: ${m.message}`),
  );
}

const AWS_IMPORT =
  "import { SNSClient } from '@aws-sdk/client-sns';\nexport const client = new SNSClient({});\n";

describe('the lint keeps the AWS SDK in adapter files', () => {
  it('fails domain code that imports an AWS client, statically or lazily', async () => {
    const messages = await lint('shared/memory/match.ts', AWS_IMPORT);
    expect(messages).toMatchObject([{ ruleId: '@typescript-eslint/no-restricted-imports', severity: 2 }]);
    expect(messages[0]!.message).toContain('only in adapter files');

    const lazy = await lint(
      'lambdas/executor.ts',
      "export const load = () => import('@aws-sdk/client-kms');\n",
    );
    expect(lazy).toMatchObject([{ ruleId: 'no-restricted-syntax', severity: 2 }]);
  });

  it('lets a listed adapter import its AWS client', async () => {
    expect(await lint('shared/doctor/sns-check.ts', AWS_IMPORT)).toEqual([]);
    expect(await lint('shared/aws/sns-notifier.ts', AWS_IMPORT)).toEqual([]);
  });
});

describe('the lint finds import cycles', () => {
  it('finds none in shared/memory (the AgentCore mirror is loaded from open-mirror.ts)', async () => {
    expect(await cyclesUnder('shared/memory')).toEqual([]);
  });
});

/** One deliberately wrong import per layer of shared/ (the code map in docs/code-map.md). */
const WRONG_IMPORTS: [file: string, code: string][] = [
  ['shared/records/runs.ts', "export { Store } from '../store/store.ts';\n"],
  ['shared/store/store.ts', "export { RunSchema } from '../records/runs.ts';\n"],
  ['shared/errors/index.ts', "export { listRules } from '../memory/rules-repository.ts';\n"],
  ['shared/config/env.ts', "export { invokeAndSettle } from '../runs/settle.ts';\n"],
  ['shared/logging/log.ts', "export { attachGate } from '../gate/gate-hook.ts';\n"],
  ['shared/memory/match.ts', "export { learnFromDecision } from '../runs/learn.ts';\n"],
  ['shared/sources/source.ts', "export { RunLedger } from '../run-state/run-ledger.ts';\n"],
  ['shared/run-state/run-ledger.ts', "export { judge } from '../gate/verdict.ts';\n"],
  ['shared/gate/gate-hook.ts', "export { createExecutor } from '../agents/executor/executor.ts';\n"],
  ['shared/agents/executor/tools.ts', "export { invokeAndSettle } from '../../runs/settle.ts';\n"],
  ['shared/graph/run-graph.ts', "export { startRun } from '../runs/start-run.ts';\n"],
  ['shared/runs/settle.ts', "export { createApp } from '../web/app.ts';\n"],
];

describe('the lint keeps each layer of shared/ from importing the layers above it', () => {
  it.each(WRONG_IMPORTS)('fails %s importing upward', async (file, code) => {
    // An upward import often closes a cycle as well; that is the no-cycle rule's report.
    const messages = (await lint(file, code)).filter((m) => m.ruleId !== 'import-x/no-cycle');
    expect(messages).toMatchObject([{ ruleId: '@typescript-eslint/no-restricted-imports', severity: 2 }]);
    expect(messages[0]!.message).toMatch(/may (not )?import/);
  });

  it('lets each layer import what is below it, and records import errors and ids', async () => {
    const allowed: [string, string][] = [
      [
        'shared/records/runs.ts',
        "export { HandoffError } from '../errors/index.ts';\nexport { newId } from '../store/ids.ts';\n",
      ],
      ['shared/run-state/run-ledger.ts', "export type { GatePolicy } from '../gate/verdict.ts';\n"],
      ['shared/runs/settle.ts', "export { RunLedger } from '../run-state/run-ledger.ts';\n"],
      ['shared/web/app.ts', "export { invokeAndSettle } from '../runs/settle.ts';\n"],
    ];
    for (const [file, code] of allowed) expect([file, await lint(file, code)]).toEqual([file, []]);
  });

  it('still keeps the AWS SDK out of a layered file that is not an adapter', async () => {
    const messages = await lint('shared/runs/settle.ts', AWS_IMPORT);
    expect(messages[0]!.message).toContain('only in adapter files');
  });
});
