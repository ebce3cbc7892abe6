import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseAllDocuments, stringify } from 'yaml';
import { InvalidInputError } from '../../shared/errors/index.ts';
import { checkWorkflowText, loadWorkflowFile, parseWorkflow } from '../../shared/workflows/load.ts';
import { toCronExpression, WorkflowSchema } from '../../shared/workflows/schema.ts';

const EXAMPLE = `id: my-inbox
name: My inbox
instructions: Archive newsletters and receipts, file bug reports as tickets, draft replies to colleagues.
trigger: { manual: true }
source: { type: maildir, path: /abs/path/to/Maildir }
actions:
  - { name: archive }
  - { name: file_ticket }
  - { name: draft_reply }
  - { name: delete, irreversible: true }
human_gate: { options: [file_ticket, archive, draft_reply, skip] }
confidence_threshold: 0.7
`;

/** An IMAP source's settings, for the OAuth2 cases. */
const IMAP =
  'type: imap, host: imap.gmail.com, port: 993, tls: true, user: me@gmail.com, credential: GMAIL_OAUTH';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-wf-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The one-line message of the InvalidInputError thrown by parsing `text` as my.yaml. */
function refusal(text: string, file = 'my.yaml'): string {
  try {
    parseWorkflow(text, file);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidInputError);
    const msg = (err as Error).message;
    expect(msg).not.toContain('\n');
    return msg;
  }
  throw new Error('expected a refusal');
}

describe('workflow files', () => {
  it('loads the example from YAML with defaults applied', async () => {
    const file = join(dir, 'my.yaml');
    await writeFile(file, EXAMPLE);
    const w = await loadWorkflowFile(file);
    expect(w.id).toBe('my-inbox');
    expect(w.trigger).toEqual({ manual: true });
    expect(w.source).toEqual({ type: 'maildir', path: '/abs/path/to/Maildir' });
    expect(w.actions.map((a) => [a.name, a.irreversible])).toEqual([
      ['archive', false],
      ['file_ticket', false],
      ['draft_reply', false],
      ['delete', true],
    ]);
    expect(w.confidence_threshold).toBe(0.7);
  });

  it('loads the same workflow from JSON, and from an unknown extension by content', async () => {
    const yamlOne = parseWorkflow(EXAMPLE, 'my.yaml');
    const json = JSON.stringify(WorkflowSchema.parse(yamlOne), null, 2);
    const file = join(dir, 'my.json');
    await writeFile(file, json);
    expect(await loadWorkflowFile(file)).toEqual(yamlOne);
    expect(parseWorkflow(json, 'workflow.txt')).toEqual(yamlOne);
    expect(parseWorkflow(EXAMPLE, 'workflow')).toEqual(yamlOne);
  });

  it('reads an IMAP source with password auth by default, and OAuth2 for Gmail and Microsoft 365', () => {
    const source = (text: string) =>
      parseWorkflow(EXAMPLE.replace('type: maildir, path: /abs/path/to/Maildir', text), 'a.yaml').source;
    expect(source(IMAP)).toMatchObject({ auth: 'password', mailbox: 'INBOX' });
    expect(source(`${IMAP}, auth: oauth2, oauth: { provider: google }`)).toMatchObject({
      auth: 'oauth2',
      oauth: { provider: 'google' },
    });
    expect(
      source(
        `${IMAP}, auth: oauth2, oauth: { provider: microsoft, token_url: "https://login.example.com/t" }`,
      ),
    ).toMatchObject({ oauth: { provider: 'microsoft', token_url: 'https://login.example.com/t' } });
  });

  it("accepts the README's IMAP examples (Fastmail, Gmail, Microsoft 365)", async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const block = /```yaml\n(# Fastmail[\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const sources = parseAllDocuments(block).map((d) => stringify(d.toJS()));
    expect(sources).toHaveLength(3);
    for (const source of sources) {
      const text = EXAMPLE.replace(/^source: .*$/m, source.trimEnd());
      expect(parseWorkflow(text, 'a.yaml').source.type).toBe('imap');
    }
  });

  it('accepts schedule and webhook triggers', () => {
    const sched = parseWorkflow(
      EXAMPLE.replace('{ manual: true }', '{ schedule: "cron(0 8 ? * MON-FRI *)" }'),
      'a.yaml',
    );
    expect(sched.trigger).toEqual({ schedule: 'cron(0 8 ? * MON-FRI *)' });
    expect(
      parseWorkflow(EXAMPLE.replace('{ manual: true }', '{ schedule: "rate(5 minutes)" }'), 'a.yaml').trigger,
    ).toEqual({ schedule: 'rate(5 minutes)' });
    expect(parseWorkflow(EXAMPLE.replace('{ manual: true }', '{ webhook: true }'), 'a.yaml').trigger).toEqual(
      {
        webhook: true,
      },
    );
  });

  const bad: [string, string, RegExp][] = [
    ['unknown field', EXAMPLE + 'colour: blue\n', /^my\.yaml: colour: unknown field \(allowed: id, name,/],
    [
      'unknown nested field',
      EXAMPLE.replace('{ name: archive }', '{ name: archive, undo: true }'),
      /^my\.yaml: actions\.0\.undo: unknown field/,
    ],
    [
      'missing instructions',
      EXAMPLE.replace(/^instructions:.*\n/m, ''),
      /^my\.yaml: instructions: is required$/,
    ],
    [
      'threshold 1.5',
      EXAMPLE.replace('0.7', '1.5'),
      /^my\.yaml: confidence_threshold: must be between 0 and 1 \(got 1\.5\)$/,
    ],
    [
      'bad cron',
      EXAMPLE.replace('{ manual: true }', '{ schedule: "cron(0 8 * * *)" }'),
      /^my\.yaml: trigger\.schedule: cron needs 6 fields/,
    ],
    [
      'cron without ?',
      EXAMPLE.replace('{ manual: true }', '{ schedule: "cron(0 8 * * * *)" }'),
      /^my\.yaml: trigger\.schedule: cron needs "\?"/,
    ],
    [
      'not a schedule',
      EXAMPLE.replace('{ manual: true }', '{ schedule: "every morning" }'),
      /^my\.yaml: trigger\.schedule: must be "cron\(/,
    ],
    [
      'two trigger kinds',
      EXAMPLE.replace('{ manual: true }', '{ manual: true, webhook: true }'),
      /^my\.yaml: trigger: must have exactly one kind/,
    ],
    [
      'gate option not declared',
      EXAMPLE.replace('skip]', 'skip, publish]'),
      /^my\.yaml: human_gate\.options\.4: "publish" is not a declared action/,
    ],
    [
      'duplicate action',
      EXAMPLE.replace('{ name: delete, irreversible: true }', '{ name: archive }'),
      /^my\.yaml: actions\.3\.name: duplicate action "archive"$/,
    ],
    [
      'non snake_case action',
      EXAMPLE.replace('{ name: draft_reply }', '{ name: draftReply }'),
      /^my\.yaml: actions\.2\.name: must be snake_case/,
    ],
    [
      'skip declared',
      EXAMPLE.replace('{ name: draft_reply }', '{ name: skip }'),
      /^my\.yaml: actions\.2\.name: "skip" is always available/,
    ],
    [
      'bad irreversible',
      EXAMPLE.replace('irreversible: true', 'irreversible: maybe'),
      /^my\.yaml: actions\.3\.irreversible: must be true or false \(got "maybe"\)$/,
    ],
    [
      'relative path',
      EXAMPLE.replace('/abs/path/to/Maildir', 'Maildir'),
      /^my\.yaml: source\.path: must be an absolute path \(got "Maildir"\)$/,
    ],
    [
      'action the source cannot do',
      EXAMPLE.replace('{ name: draft_reply }', '{ name: explode }').replace('draft_reply, skip', 'skip'),
      /^my\.yaml: actions\.2\.name: the maildir source cannot "explode" \(it can: archive, delete, draft_reply, file_ticket; or name an integration's tool as <entry>__<tool>\)$/,
    ],
    [
      'an unknown source type',
      EXAMPLE.replace('type: maildir, path: /abs/path/to/Maildir', 'type: pop3'),
      /^my\.yaml: source\.type: must be "maildir", "imap" or "event" \(got "pop3"\)$/,
    ],
    [
      'an event source that is not woken by its webhook',
      EXAMPLE.replace('type: maildir, path: /abs/path/to/Maildir', 'type: event').replace(
        /archive|draft_reply|delete/g,
        'file_ticket',
      ),
      /^my\.yaml: trigger: an event source needs trigger: \{ webhook: true \} \(its items arrive in the webhook\)/,
    ],
    [
      'an event source asked to archive',
      EXAMPLE.replace('type: maildir, path: /abs/path/to/Maildir', 'type: event').replace(
        '{ manual: true }',
        '{ webhook: true }',
      ),
      /^my\.yaml: actions\.0\.name: the event source cannot "archive" \(it can: file_ticket; or name an integration's tool as <entry>__<tool>\)/,
    ],
    [
      'auth: oauth2 without oauth',
      EXAMPLE.replace('type: maildir, path: /abs/path/to/Maildir', `${IMAP}, auth: oauth2`),
      /^my\.yaml: source\.oauth: is needed with auth: oauth2, e\.g\. oauth: \{ provider: google \}$/,
    ],
    [
      'an unknown OAuth2 provider',
      EXAMPLE.replace(
        'type: maildir, path: /abs/path/to/Maildir',
        `${IMAP}, auth: oauth2, oauth: { provider: yahoo }`,
      ),
      /^my\.yaml: source\.oauth\.provider: must be "google", "microsoft" or "custom" \(got "yahoo"\)$/,
    ],
    [
      'a custom provider without token_url',
      EXAMPLE.replace(
        'type: maildir, path: /abs/path/to/Maildir',
        `${IMAP}, auth: oauth2, oauth: { provider: custom }`,
      ),
      /^my\.yaml: source\.oauth\.token_url: is needed with provider: custom$/,
    ],
    [
      'a token_url in the clear to another host',
      EXAMPLE.replace(
        'type: maildir, path: /abs/path/to/Maildir',
        `${IMAP}, auth: oauth2, oauth: { provider: custom, token_url: "http://auth.example.com/token" }`,
      ),
      /^my\.yaml: source\.oauth\.token_url: must be https:\/\/ unless it is on this machine/,
    ],
    [
      'oauth settings with password auth',
      EXAMPLE.replace('type: maildir, path: /abs/path/to/Maildir', `${IMAP}, oauth: { provider: google }`),
      /^my\.yaml: source\.oauth: is only read with auth: oauth2$/,
    ],
    ['bad id', EXAMPLE.replace('my-inbox', 'My Inbox'), /^my\.yaml: id: must be a slug/],
    [
      'invalid YAML',
      EXAMPLE.replace('name: My inbox', 'name: [My inbox'),
      /^my\.yaml: not valid YAML: .+ \(line \d+\)$/,
    ],
    ['empty file', '', /^my\.yaml: file is empty$/],
    ['a list', '- a\n- b\n', /^my\.yaml: must be a mapping/],
  ];
  it.each(bad)('refuses %s with one line naming file and field', (_name, text, expected) => {
    expect(refusal(text)).toMatch(expected);
  });

  it('refuses invalid JSON with the line', () => {
    expect(refusal('{\n  "id": "x",\n}\n', 'w.json')).toMatch(/^w\.json: not valid JSON: .+ \(line 3\)$/);
  });

  it('lists every problem on the same line, not a count of the others', () => {
    expect(refusal(EXAMPLE.replace('0.7', '1.5').replace('my-inbox', 'My Inbox'))).toMatch(
      /^my\.yaml: id: .+; confidence_threshold: .+$/,
    );
  });

  it('returns every problem as a list for the web editor', () => {
    const checked = checkWorkflowText(
      EXAMPLE.replace('0.7', '1.5').replace('my-inbox', 'My Inbox'),
      'w.yaml',
    );
    expect(checked.ok).toBe(false);
    if (!checked.ok) {
      expect(checked.problems).toHaveLength(2);
      expect(checked.problems[0]).toMatch(/^id: /);
      expect(checked.problems[1]).toMatch(/^confidence_threshold: /);
    }
  });

  it('names a missing file', async () => {
    const file = join(dir, 'nope.yaml');
    await expect(loadWorkflowFile(file)).rejects.toMatchObject({
      name: 'InvalidInputError',
      message: `${file}: file not found`,
    });
  });

  it('round-trips through yaml.stringify', () => {
    const w = parseWorkflow(EXAMPLE, 'my.yaml');
    expect(parseWorkflow(stringify(w), 'copy.yaml')).toEqual(w);
  });
});

describe('toCronExpression', () => {
  it.each([
    ['cron(0 8 * * ? *)', '0 8 * * *'],
    ['cron(15 10 ? * 6L 2025)', '15 10 * * 5L'],
    ['cron(0 8 ? * MON-FRI *)', '0 8 * * MON-FRI'],
    ['cron(0 9 ? * 2-6 *)', '0 9 * * 1-5'],
    ['cron(0 12 ? * 2#1 *)', '0 12 * * 1#1'],
    ['cron(0/15 * * * ? *)', '0-59/15 * * * *'],
    ['cron(0 8 1/2 * ? *)', '0 8 1-31/2 * *'],
    ['cron(0 8 ? * 2/2 *)', '0 8 * * 1-6/2'],
    ['cron(0 0 1 JAN ? *)', '0 0 1 JAN *'],
    ['rate(5 minutes)', '*/5 * * * *'],
    ['rate(1 minute)', '*/1 * * * *'],
    ['rate(120 minutes)', '0 */2 * * *'],
    ['rate(2 hours)', '0 */2 * * *'],
    ['rate(1 hour)', '0 */1 * * *'],
    ['rate(48 hours)', '0 0 */2 * *'],
    ['rate(3 days)', '0 0 */3 * *'],
  ])('%s -> %s', (input, expected) => {
    expect(toCronExpression(input)).toBe(expected);
  });

  it.each([
    'cron(0 8 * * *)',
    'cron(99 8 * * ? *)',
    'cron(0 8 ? * 9 *)',
    'rate(0 minutes)',
    'rate(90 minutes)',
    'rate(45 days)',
    'rate(5 weeks)',
    'daily',
    '',
  ])('returns null for %j', (input) => {
    expect(toCronExpression(input)).toBeNull();
  });
});
