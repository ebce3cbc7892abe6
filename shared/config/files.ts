import { access } from 'node:fs/promises';

/** True when something exists at `file` (any kind); false when it does not or cannot be reached. */
export function pathExists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
