import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from '@jest/globals';
import { writeMaildir } from '../../shared/sources/maildir/generate.ts';
import { cliJson } from '../support/cli.ts';
import { mail, workflowYaml } from '../support/engine-fixture.ts';

interface Pending {
  decision_id: string;
  sender: string;
  subject: string;
}
interface AuditRow {
  item_id: string | null;
  outcome: string;
  action: string | null;
  decided_by: string | null;
}

const neutral = (from: string, subject: string, fromName?: string) =>
  mail({
    from,
    subject,
    body: 'Hi,\n\nPlease see the attached note when convenient.\n',
    ...(fromName ? { fromName } : {}),
  });

it('answers teach narrow rules: the next run handles what they cover and still asks about every look-alike', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-learn-'));
  const maildir = path.join(dir, 'Maildir');
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  await writeMaildir(maildir, [
    neutral('ana@partnerco.example', 'Statement for the quarter'),
    neutral('tomi@fastmail.example', 'Following up'),
    neutral('billing@vendorx.example', 'Account notice'),
  ]);
  await fs.writeFile(path.join(dir, 'inbox.yaml'), workflowYaml(maildir));
  await cliJson(['workflows', 'add', path.join(dir, 'inbox.yaml')], env);

  const first = await cliJson<{ status: string; deferred: number }>(['run', 'inbox'], env);
  expect(first).toMatchObject({ status: 'waiting', deferred: 3 });
  const notes: Record<string, [string, string | null]> = {
    'ana@partnerco.example': ['archive', 'anything from this company can be archived'],
    'tomi@fastmail.example': ['draft_reply', null],
    'billing@vendorx.example': ['skip', 'just this once'],
  };
  for (const p of await cliJson<Pending[]>(['pending'], env)) {
    const [action, note] = notes[p.sender]!;
    await cliJson(['decide', p.decision_id, action, ...(note ? ['--note', note] : [])], env);
  }
  const rules = await cliJson<
    { match: object; action: string; source: string; decision_id: string; superseded_by: null }[]
  >(['rules'], env);
  expect(rules.map((r) => [r.match, r.action, r.source])).toEqual(
    expect.arrayContaining([
      [{ domain: 'partnerco.example' }, 'archive', 'learned'],
      [{ sender: 'tomi@fastmail.example' }, 'draft_reply', 'learned'],
    ]),
  );
  expect(rules).toHaveLength(2); // "just this once" taught nothing
  expect(rules.every((r) => r.decision_id.startsWith('dec_') && r.superseded_by === null)).toBe(true);

  // New mail: two covered by the rules, and look-alikes that must still be asked about.
  await writeMaildir(maildir, [
    neutral('bo@partnerco.example', 'Another statement'),
    neutral('tomi@fastmail.example', 'Following up again'),
    neutral('ana@evilpartnerco.example', 'Statement for the quarter'),
    neutral('ana@partnerco.example.evil.net', 'Statement for the quarter'),
    neutral('ana@mail.partnerco.example', 'Statement for the quarter'),
    neutral('spoof@other.example', 'Following up', 'tomi@fastmail.example'),
    neutral('someone@fastmail.example', 'Following up'),
  ]);
  const second = await cliJson<{ run_id: string; status: string; by_memory: number; deferred: number }>(
    ['run', 'inbox'],
    env,
  );
  expect(second).toMatchObject({ status: 'waiting', by_memory: 2, deferred: 5 });
  const asked = (await cliJson<Pending[]>(['pending'], env)).map((p) => p.sender).sort();
  expect(asked).toEqual(
    [
      'ana@evilpartnerco.example',
      'ana@mail.partnerco.example',
      'ana@partnerco.example.evil.net',
      'someone@fastmail.example',
      'spoof@other.example',
    ].sort(),
  );
  const audit = await cliJson<AuditRow[]>(['audit', '--run', second.run_id], env);
  expect(
    audit
      .filter((e) => e.decided_by === 'memory')
      .map((e) => e.action)
      .sort(),
  ).toEqual(['archive', 'draft_reply']);

  const stats = await cliJson<{ overall: { by_learned_rules: number; asked: number } }>(['stats'], env);
  expect(stats.overall).toMatchObject({ by_learned_rules: 2, asked: 8 });
  await fs.rm(dir, { recursive: true, force: true });
});
