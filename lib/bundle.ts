/**
 * How a handler of lambdas/ becomes what Lambda runs: esbuild (ESM, Node 22, minified,
 * source maps) with code splitting, so each `await import()` of the product (model
 * providers, the mail adapters and their parser) is a chunk of its own, loaded on first
 * use. `index.mjs` and the chunks it imports statically are what a cold start loads.
 * The stack (lib/functions.ts) and `npm run bench:lambda` bundle through here, alike.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { BUNDLE_ALIASES, MODULE_STUBS } from './bundle-stubs/aliases.ts';

/** The repository root: entries, the lock file and node_modules live here. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Left out of every bundle: the AWS SDK v3 (the Lambda runtime has it). */
export const LAMBDA_EXTERNALS = ['@aws-sdk/*'];

/** CommonJS dependencies bundled into ESM still call require(). */
export const REQUIRE_BANNER =
  "import { createRequire as __handoffCreateRequire } from 'node:module'; const require = __handoffCreateRequire(import.meta.url);";

const ZOD_LOCALES_STUB = path.join(PROJECT_ROOT, 'lib', 'bundle-stubs', 'zod-locales.ts');

/** zod's `export * as locales` (every language) becomes the English one only (bundle-stubs/zod-locales.ts). */
const zodLocalesOnlyEnglish: Plugin = {
  name: 'zod-locales-only-english',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.c?js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: ZOD_LOCALES_STUB } : undefined,
    );
  },
};

/** Project modules that Lambda does not run become their stubs (bundle-stubs/aliases.ts, MODULE_STUBS). */
const projectModuleStubs: Plugin = {
  name: 'project-module-stubs',
  setup(b) {
    const stubs = new Map(
      Object.entries(MODULE_STUBS).map(([file, stub]) => [
        path.join(PROJECT_ROOT, file),
        path.join(PROJECT_ROOT, stub),
      ]),
    );
    // Only imports that name one of the stubbed files' basenames reach this plugin.
    const names = Object.keys(MODULE_STUBS).map((f) => path.basename(f).replace(/[.]/g, '\\.'));
    b.onResolve({ filter: new RegExp(`(^|/)(${names.join('|')})$`) }, (args) => {
      const stub = stubs.get(path.resolve(args.resolveDir, args.path));
      return stub ? { path: stub } : undefined;
    });
  },
};

/** The entry file of function `name`. */
export function handlerEntry(name: string): string {
  return path.join(PROJECT_ROOT, 'lambdas', `${name}.ts`);
}

/** The esbuild options that bundle `entry` (a file) into `outdir`: `index.mjs` and `chunks/`. */
export function bundleOptions(
  entry: string,
  outdir: string,
  external: readonly string[] = LAMBDA_EXTERNALS,
): BuildOptions & { metafile: true } {
  return {
    absWorkingDir: PROJECT_ROOT,
    entryPoints: { index: entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    mainFields: ['module', 'main'],
    external: [...external],
    // imapflow's logger and proxy packages, never reached by Handoff, become stubs.
    alias: Object.fromEntries(
      Object.entries(BUNDLE_ALIASES).map(([pkg, stub]) => [pkg, path.join(PROJECT_ROOT, stub)]),
    ),
    plugins: [zodLocalesOnlyEnglish, projectModuleStubs],
    banner: { js: REQUIRE_BANNER },
    metafile: true,
    logLevel: 'warning',
  };
}

/** Bundles `entry` (a file; a handler is `handlerEntry(name)`) into `outdir`; returns esbuild's metafile. */
export async function bundleEntry(
  entry: string,
  outdir: string,
  external: readonly string[] = LAMBDA_EXTERNALS,
): Promise<Metafile> {
  return (await build(bundleOptions(entry, outdir, external))).metafile;
}

/** What a handler's bundle holds, split by when it loads. */
export interface LoadedAtImport {
  /** `index.mjs` and every chunk it imports statically: what a cold start loads. */
  files: string[];
  bytes: number;
  /** The chunks loaded on first use (dynamic `import()`). */
  lazyBytes: number;
}

/** Splits a bundle's output (esbuild's metafile of one handler) into what a cold start loads and the rest. */
export function loadedAtImport(metafile: Metafile): LoadedAtImport {
  const outputs = metafile.outputs;
  const entry = Object.keys(outputs).find((file) => /(^|[\\/])index\.mjs$/.test(file));
  if (!entry) throw new Error('the bundle has no index.mjs');
  const files: string[] = [];
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (files.includes(file)) continue;
    files.push(file);
    for (const imp of outputs[file]?.imports ?? [])
      if (imp.kind === 'import-statement' && !imp.external) queue.push(imp.path);
  }
  const code = Object.entries(outputs).filter(([file]) => file.endsWith('.mjs'));
  const bytes = code.filter(([file]) => files.includes(file)).reduce((s, [, o]) => s + o.bytes, 0);
  const lazyBytes = code.filter(([file]) => !files.includes(file)).reduce((s, [, o]) => s + o.bytes, 0);
  return { files, bytes, lazyBytes };
}
