/**
 * The executor as CDK really bundles it: with the IMAP source (imapflow) inside, it stays under
 * the 3 MB budget because imapflow's logger (pino) and proxy (socks) packages are stubs there,
 * and it still loads as ESM.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { expect, it } from '@jest/globals';
import { handoffFunction } from '../../lib/functions.ts';
import { cdkJsonContext, tempOutdir } from './fixture.ts';

const BUDGET_BYTES = 3 * 1024 * 1024;

it('bundles the executor with imapflow under 3 MB, pino and socks left out', () => {
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
    const file = path.join(dir ?? '', 'index.mjs');
    const { sources } = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
    expect(sources.some((s) => s.includes('node_modules/imapflow/'))).toBe(true);
    expect(sources.filter((s) => /node_modules\/(pino|socks)\//.test(s))).toEqual([]);
    expect(sources.some((s) => s.endsWith('lib/bundle-stubs/pino.ts'))).toBe(true);
    expect(statSync(file).size).toBeLessThan(BUDGET_BYTES);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}, 120_000);
