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
