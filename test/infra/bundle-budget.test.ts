/**
 * The executor as the stack really bundles it (lib/bundle.ts): what a cold start loads stays
 * under the 1.2 MB budget because the mail adapters (imapflow, mailparser and their charset
 * tables) and the model providers are chunks loaded on first use; imapflow's logger (pino)
 * and proxy (socks) are stubs and zod ships only its English messages. Every chunk loads as ESM.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { expect, it } from '@jest/globals';
import { handoffFunction, PROJECT_ROOT } from '../../lib/functions.ts';
import { cdkJsonContext, tempOutdir } from './fixture.ts';

const run = promisify(execFile);
const BUDGET_BYTES = 1.2 * 1024 * 1024;

/** Relative ESM imports of a bundle file (`./chunks/x.mjs`, `./y.mjs`) that load with it. */
function staticImports(file: string): string[] {
  const code = readFileSync(file, 'utf8');
  const found = [...code.matchAll(/(?:^|[;\s}])import\s*(?:[\w${},*\s]+from\s*)?["'](\.{1,2}\/[^"']+)["']/g)];
  return found.map((m) => path.resolve(path.dirname(file), m[1]!));
}

/** `index.mjs` and every chunk it imports statically, transitively: what a cold start loads. */
function loadedAtImport(index: string): string[] {
  const files: string[] = [];
  const queue = [index];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (files.includes(file)) continue;
    files.push(file);
    queue.push(...staticImports(file));
  }
  return files;
}

const sourcesOf = (file: string) =>
  (JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources;

it('bundles the executor with what a cold start loads under 1.2 MB, mail and providers loaded on first use', async () => {
  const outdir = tempOutdir();
  try {
    const app = new App({ outdir, context: cdkJsonContext() });
    handoffFunction(new Stack(app, 'BudgetCheck'), {
      name: 'executor',
      environment: {},
      removalPolicy: RemovalPolicy.DESTROY,
    });
    app.synth();

    const dir = readdirSync(outdir)
      .map((d) => path.join(outdir, d))
      .find((d) => existsSync(path.join(d, 'index.mjs')));
    const index = path.join(dir ?? '', 'index.mjs');
    const atImport = loadedAtImport(index);
    const chunkDir = path.join(dir ?? '', 'chunks');
    const chunks = (existsSync(chunkDir) ? readdirSync(chunkDir) : [])
      .filter((f) => f.endsWith('.mjs'))
      .map((f) => path.join(chunkDir, f));
    const lazy = chunks.filter((f) => !atImport.includes(f));
    const eager = atImport.flatMap(sourcesOf);
    const onFirstUse = lazy.flatMap(sourcesOf);

    expect(atImport.reduce((bytes, f) => bytes + statSync(f).size, 0)).toBeLessThan(BUDGET_BYTES);
    for (const pkg of ['imapflow', 'mailparser', 'iconv-lite', 'openai', '@anthropic-ai/sdk']) {
      expect(eager.filter((s) => s.includes(`node_modules/${pkg}/`))).toEqual([]);
      expect(onFirstUse.some((s) => s.includes(`node_modules/${pkg}/`))).toBe(true);
    }
    const all = [...eager, ...onFirstUse];
    expect(all.filter((s) => /node_modules\/(pino|socks)\//.test(s))).toEqual([]);
    expect(all.some((s) => s.endsWith('lib/bundle-stubs/pino.ts'))).toBe(true);
    expect(all.filter((s) => /node_modules\/zod\/v4\/locales\/(?!en\.js)/.test(s))).toEqual([]);
    expect(all.some((s) => s.endsWith('node_modules/zod/v4/locales/en.js'))).toBe(true);

    // Every chunk loads on Node as ESM (the runtime provides @aws-sdk/*; here node_modules does).
    symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(outdir, 'node_modules'), 'dir');
    const loaded = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        'for (const f of process.argv.slice(1)) await import(f); console.log("loaded");',
        ...lazy,
      ],
      { timeout: 60_000 },
    );
    expect(loaded.stdout.trim()).toBe('loaded');
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}, 120_000);
