/**
 * The slow, real half of the infra tests: esbuild really bundles a handler, and the
 * real `cdk synth` runs in a child process exactly as a person (or CI) would run it.
 * Keep both: they are what catches a handler that does not bundle or load as ESM.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from '@jest/globals';
import { handoffFunction, PROJECT_ROOT } from '../../lib/functions.ts';
import { cdkJsonContext, tempOutdir } from './fixture.ts';

const run = promisify(execFile);

/** 90 s is plenty on an idle 2-core machine (8 bundles); a shared, overloaded one may set more. */
const SYNTH_TIMEOUT_MS = Number(process.env.HANDOFF_SYNTH_TIMEOUT_MS ?? 90_000);

/** The environment of a person's shell: no test-runner markers (NODE_ENV=test changes how a CDK app synthesises). */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => k !== 'NODE_ENV' && !k.startsWith('VITEST') && !k.startsWith('JEST_'),
    ),
  );
  return { ...env, ...extra };
}

/**
 * Runs a command in its own process group and, past `timeoutMs`, kills the whole group
 * (`npx` → `cdk` → `tsx` → `esbuild`), so nothing is left writing into a removed outdir.
 */
function runGroup(
  command: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, opts.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

/** Directories of bundled assets (`asset.<hash>/index.mjs`) in a cloud assembly. */
function bundles(outdir: string): string[] {
  return readdirSync(outdir)
    .filter((d) => d.startsWith('asset.') && existsSync(path.join(outdir, d, 'index.mjs')))
    .map((d) => path.join(outdir, d));
}

describe('real bundling', () => {
  it('bundles a handler into ESM (index.mjs and its chunks) that loads on Node with the SDK left out', async () => {
    const outdir = tempOutdir();
    try {
      const app = new App({ outdir, context: cdkJsonContext() });
      const stack = new Stack(app, 'BundleCheck');
      handoffFunction(stack, { name: 'step-failed', environment: {}, removalPolicy: RemovalPolicy.DESTROY });
      app.synth();

      const [dir, ...more] = bundles(outdir);
      expect(more).toEqual([]);
      const code = readFileSync(path.join(dir ?? '', 'index.mjs'), 'utf8');
      expect(code.startsWith("import { createRequire as __handoffCreateRequire } from 'node:module';")).toBe(
        true,
      );
      const map = JSON.parse(readFileSync(path.join(dir ?? '', 'index.mjs.map'), 'utf8')) as {
        sources: string[];
      };
      expect(map.sources.filter((s) => s.includes('node_modules/@aws-sdk/'))).toEqual([]);
      expect(map.sources.some((s) => s.endsWith('lambdas/step-failed.ts'))).toBe(true);

      // Load it as Lambda would (the runtime provides @aws-sdk/*; here the project's node_modules does).
      symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(outdir, 'node_modules'), 'dir');
      const loaded = await run(
        process.execPath,
        [
          '--enable-source-maps',
          '--input-type=module',
          '-e',
          'const m = await import(process.argv[1]); console.log(typeof m.handler);',
          path.join(dir ?? '', 'index.mjs'),
        ],
        {
          env: cleanEnv({
            USE_DYNAMODB: 'true',
            HANDOFF_TABLE: 'handoff-test',
            AWS_REGION: 'us-east-1',
            UI_BASE_URL: 'https://handoff.example',
            NOTIFY_TOPIC_ARN: 'arn:aws:sns:us-east-1:111122223333:handoff-notify',
          }),
          timeout: 60_000,
        },
      );
      expect(loaded.stdout.trim()).toBe('function');
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('cdk synth (CLI)', () => {
  it(
    'synthesises the app offline and quietly, with cdk-nag passing and all ten handlers bundled (the agent function too)',
    async () => {
      const outdir = tempOutdir();
      try {
        const started = Date.now();
        const result = await runGroup('npx', ['cdk', 'synth', '--quiet', '--output', outdir], {
          cwd: PROJECT_ROOT,
          env: cleanEnv({
            CDK_DISABLE_CLI_TELEMETRY: 'true',
            CDK_DISABLE_VERSION_CHECK: '1',
            // No instance-metadata probing for a default account: synth needs no credentials.
            AWS_EC2_METADATA_DISABLED: 'true',
          }),
          timeoutMs: SYNTH_TIMEOUT_MS,
        });
        const seconds = (Date.now() - started) / 1000;
        expect(result.timedOut).toBe(false);
        expect(result.code).toBe(0);

        const template = JSON.parse(
          readFileSync(path.join(outdir, 'HandoffStack.template.json'), 'utf8'),
        ) as {
          Resources: Record<string, { Type: string }>;
        };
        const functions = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
        expect(functions).toHaveLength(10);
        expect(bundles(outdir)).toHaveLength(10);
        expect(result.stdout).toBe('');
        expect(result.stderr).not.toMatch(/NOTICES|telemetry|newer version|upgrade|AwsSolutions-/i);
        console.info(`cdk synth took ${seconds.toFixed(1)} s`);
      } finally {
        rmSync(outdir, { recursive: true, force: true });
      }
    },
    SYNTH_TIMEOUT_MS + 30_000,
  );
});
