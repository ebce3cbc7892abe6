#!/usr/bin/env node
// Runs the CLI: the bundle `npm ci` builds (dist/handoff.mjs) when it is newer than every
// source file, else the TypeScript sources through tsx. Either way, no build step to remember.
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = `${root}dist/handoff.mjs`;

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function bundleIsFresh() {
  try {
    return (
      statSync(bundle).mtimeMs >=
      Math.max(newestSource(`${root}shared`), statSync(`${root}bin/handoff.ts`).mtimeMs)
    );
  } catch {
    return false;
  }
}

if (bundleIsFresh()) {
  await import(bundle);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./handoff.ts');
}
