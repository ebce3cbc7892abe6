import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { checkWorkspaceName, suggestWorkspaceName } from '../../shared/workspaces/names.ts';
import { WorkspaceRegistry } from '../../shared/workspaces/registry.ts';

describe('workspace names', () => {
  it('suggests a name a person can type from what they wrote', () => {
    expect(suggestWorkspaceName('Team Ops')).toBe('team-ops');
    expect(suggestWorkspaceName('  Café  Support!! ')).toBe('cafe-support');
    expect(suggestWorkspaceName('***')).toBeNull();
  });

  it('refuses "Team Ops" in one line that offers team-ops', () => {
    expect(() => checkWorkspaceName('Team Ops')).toThrow(/is not valid: .*; try "team-ops"$/);
    expect(checkWorkspaceName('team-ops')).toBe('team-ops');
  });

  it('asked for "Team Ops" when team-ops exists, says which one was meant', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-ws-names-'));
    const registry = new WorkspaceRegistry(new JsonFileStore(dir));
    await registry.add('team-ops');
    await expect(registry.resolve('Team Ops')).rejects.toThrow(
      'no workspace "Team Ops" (see: handoff workspaces); did you mean "team-ops"?',
    );
    await expect(registry.resolve('Sales')).rejects.toThrow(
      /^no workspace "Sales" \(see: handoff workspaces\)$/,
    );
    expect((await registry.resolve('team-ops')).name).toBe('team-ops');
    await fs.rm(dir, { recursive: true, force: true });
  });
});
