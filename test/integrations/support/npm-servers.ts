import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** The bin of an installed npm package, to spawn with process.execPath. */
export function binOf(pkg: string, name?: string): string {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = require(manifestPath) as { bin?: string | Record<string, string> };
  const bin =
    typeof manifest.bin === 'string'
      ? manifest.bin
      : manifest.bin?.[name ?? Object.keys(manifest.bin ?? {})[0]!];
  if (!bin) throw new Error(`${pkg} has no bin`);
  return path.join(path.dirname(manifestPath), bin);
}

export const MEMORY_SERVER = () => binOf('@modelcontextprotocol/server-memory');
export const EVERYTHING_SERVER = () => binOf('@modelcontextprotocol/server-everything');
