import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** Every file under `root` (relative path) with the SHA-256 of its bytes: compare two to prove nothing changed. */
export async function hashTree(root: string): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  for (const entry of await fs.readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    hashes[path.relative(root, file)] = createHash('sha256')
      .update(await fs.readFile(file))
      .digest('hex');
  }
  return hashes;
}
