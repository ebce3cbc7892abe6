import { createHash, randomBytes } from 'node:crypto';

/** A new time-sortable id with a prefix, e.g. `run_mi3k2x0a_9f3c1e`. */
export function newId(prefix: string): string {
  return `${prefix}_${Date.now().toString(36).padStart(9, '0')}_${randomBytes(3).toString('hex')}`;
}

/** A stable id derived from its parts, so a retry names the same thing. */
export function stableId(prefix: string, ...parts: string[]): string {
  return `${prefix}_${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 16)}`;
}
