import { describe, expect, it } from '@jest/globals';
import { InvalidInputError } from '../../shared/errors/index.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';

const BASE = `id: shared-inbox
name: Shared inbox
instructions: Archive newsletters and receipts.
trigger: { manual: true }
source: { type: maildir, path: /abs/Maildir }
actions:
  - { name: archive }
  - { name: file_ticket }
  - { name: delete, irreversible: true }
human_gate: { options: [archive, file_ticket, skip] }
`;

const specialist = (over = '') => `  - name: billing
    description: Receipts and invoices.
    instructions: Archive receipts.
${over}`;

function refusal(text: string): string {
  try {
    parseWorkflow(text, 'shared-inbox.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('specialists in a workflow file', () => {
  it('are off when absent: the parsed workflow has no specialists key at all', () => {
    expect(parseWorkflow(BASE, 'a.yaml')).not.toHaveProperty('specialists');
  });

  it('load with a name, a description, instructions and, optionally, their own actions', () => {
    const w = parseWorkflow(
      `${BASE}specialists:\n${specialist('    actions: [archive, skip]\n')}  - name: support\n    description: Bugs.\n    instructions: File bugs.\n`,
      'a.yaml',
    );
    expect(w.specialists).toEqual([
      {
        name: 'billing',
        description: 'Receipts and invoices.',
        instructions: 'Archive receipts.',
        actions: ['archive', 'skip'],
      },
      { name: 'support', description: 'Bugs.', instructions: 'File bugs.' },
    ]);
  });

  it.each([
    [
      'an undeclared action',
      specialist('    actions: [refund]\n'),
      /specialists\.0\.actions\.0: "refund" is not a declared action/,
    ],
    [
      'a duplicate name',
      `${specialist()}${specialist()}`,
      /specialists\.1\.name: duplicate specialist "billing"/,
    ],
    [
      "the executor's name",
      specialist().replace('billing', 'executor'),
      /specialists\.0\.name: "executor" is the agent that routes/,
    ],
    [
      'a name that is not snake_case',
      specialist().replace('billing', 'Billing Team'),
      /specialists\.0\.name: must be snake_case/,
    ],
    [
      'no instructions',
      '  - name: billing\n    description: Receipts.\n',
      /specialists\.0\.instructions: is required/,
    ],
    [
      'an unknown field',
      specialist('    model: big\n'),
      /specialists\.0\.model: unknown field \(allowed: name, description, instructions, actions\)/,
    ],
  ])('refuses %s with a one-line reason', (_what, list, message) => {
    expect(refusal(`${BASE}specialists:\n${list}`)).toMatch(message);
  });

  it('refuses more than eight specialists', () => {
    const many = Array.from({ length: 9 }, (_, i) => specialist().replace('billing', `s${i}`)).join('');
    expect(refusal(`${BASE}specialists:\n${many}`)).toMatch(/specialists: at most 8 specialists/);
  });
});
