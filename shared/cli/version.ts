/** The installed version, read from the package's own package.json (from sources or the bundle). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The `version` of the nearest package.json named `handoff` above this file, or `unknown`. */
export function handoffVersion(from = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === 'handoff' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here: look one folder up
    }
    if (path.dirname(dir) === dir) return 'unknown';
  }
}
