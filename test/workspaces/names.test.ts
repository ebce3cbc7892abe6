import { describe, expect, it } from '@jest/globals';
import { checkWorkspaceName, suggestWorkspaceName } from '../../shared/workspaces/names.ts';

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
});
