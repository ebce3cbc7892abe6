/**
 * The README's "Deploy to AWS" walk, as commands the test runs: read from README.md itself
 * (so the README cannot drift from what is tested), each run as the operator would in a
 * shell of their own, against the deployment on this machine. `npx cdk` is the one command
 * that cannot run here (no AWS account): `deploy` is the harness's synthesis, checked to have
 * been made with the command's own `-c` parameters; `bootstrap` and `destroy` are named and
 * checked for their flags. Every other command (the CLI, curl) runs for real, with `bash`.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../../lib/functions.ts';

const exec = promisify(execFile);

/** The commands of the first `bash` block under `## <section>` of README.md: continuations joined, comments dropped. */
export function readmeCommands(section = 'Deploy to AWS'): string[] {
  const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${section}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${section}" section`);
  const block = /```bash\n([\s\S]*?)```/.exec(readme.slice(start));
  if (!block) throw new Error(`README.md's "${section}" section has no bash block`);
  const commands: string[] = [];
  let pending = '';
  for (const raw of block[1]!.split('\n')) {
    const line = raw.replace(/(^|\s)#(\s.*)?$/, '').trimEnd(); // a comment is "#" after a space
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    const command = `${pending}${line.trim()}`.trim();
    pending = '';
    if (command) commands.push(command);
  }
  return commands;
}

/** `-c key=value` parameters of an `npx cdk` command. */
export function cdkContext(command: string): Record<string, string> {
  return Object.fromEntries([...command.matchAll(/-c\s+([\w-]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
}

/** An operator's working directory: the repository's CLI installed as `npx handoff` finds it, offline. */
export interface OperatorDir {
  dir: string;
  run(command: string, env: Record<string, string>): Promise<{ stdout: string; stderr: string }>;
  remove(): void;
}

export function operatorDir(): OperatorDir {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'handoff-operator-'));
  mkdirSync(path.join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(
    path.join(PROJECT_ROOT, 'bin', 'handoff.js'),
    path.join(dir, 'node_modules', '.bin', 'handoff'),
  );
  return {
    dir,
    async run(command, env) {
      try {
        return await exec('bash', ['-euo', 'pipefail', '-c', command], {
          cwd: dir,
          // npx must find the CLI here and never reach a registry.
          env: { ...env, npm_config_offline: 'true', npm_config_update_notifier: 'false' },
          timeout: 60_000,
        });
      } catch (error) {
        const e = error as { code?: number; stderr?: string; stdout?: string };
        throw new Error(
          `the README's command failed (exit ${e.code}): ${command}\n${e.stderr ?? ''}${e.stdout ?? ''}`,
        );
      }
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** `command` with the stack's outputs put in for the README's placeholders (`<TableName>`). */
export function withOutputs(command: string, outputs: Record<string, string>): string {
  return command.replace(/<(\w+)>/g, (whole, name: string) => {
    const value = outputs[name];
    if (value === undefined) throw new Error(`the README names <${name}>, which the stack does not output`);
    return value;
  });
}
