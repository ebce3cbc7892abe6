/**
 * Whole runs through the real CLI on a Dovecot that takes only OAuth2-verified logins for
 * this source: the run acts with a refreshed token; a revoked refresh token fails the next
 * run with one line and acts on nothing; and no token, client secret or refresh token is
 * left in any stored record, feed event, log line or error, even with HANDOFF_DEBUG on.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { DEMO_MESSAGES, demoWorkflowYaml } from '../../../shared/sources/maildir/demo.ts';
import { renderMessage } from '../../../shared/sources/maildir/generate.ts';
import { cliJson, runCli } from '../../support/cli.ts';
import { DOVECOT_USER, startDovecot, type Dovecot } from '../../support/dovecot.ts';
import { messageIds } from '../../support/imap-fixture.ts';
import { startOAuthServer, type OAuthServer } from '../../support/oauth-server.ts';

let oauth: OAuthServer;
let dovecot: Dovecot;
let dir: string;
let env: Record<string, string>;
/** Everything the CLI wrote to stdout and stderr. */
const output: string[] = [];

beforeEach(async () => {
  oauth = await startOAuthServer(DOVECOT_USER);
  dovecot = await startDovecot({ oauth2IntrospectionUrl: oauth.introspectionUrl });
  await dovecot.append(DEMO_MESSAGES.map((m) => renderMessage(m)));
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-imap-oauth-run-'));
  env = { HANDOFF_STATE_DIR: path.join(dir, 'state'), HANDOFF_DEBUG: '1' };
  const file = path.join(dir, 'gmail-oauth.json');
  await fs.writeFile(file, JSON.stringify(oauth.client));
  const set = await cli(['credentials', 'set', 'GMAIL_OAUTH', '--value-file', file]);
  expect(set.code).toBe(0);
  await fs.rm(file);
  const yaml = demoWorkflowYaml('/unused').replace(
    /^source: .*$/m,
    `source: { type: imap, host: 127.0.0.1, port: ${dovecot.port}, tls: false, user: ${DOVECOT_USER}, credential: GMAIL_OAUTH, auth: oauth2, oauth: { provider: custom, token_url: "${oauth.tokenUrl}" } }`,
  );
  await fs.writeFile(path.join(dir, 'inbox.yaml'), yaml);
  expect((await cli(['workflows', 'add', path.join(dir, 'inbox.yaml')])).code).toBe(0);
});
afterEach(async () => {
  output.length = 0;
  await dovecot.stop();
  await oauth.close();
  await fs.rm(dir, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const result = await runCli(args, env);
  output.push(result.stdout, result.stderr);
  return result;
}

/** Every form a secret could take in a file or a line: as is, URL-encoded, base64, inside the XOAUTH2 SASL string. */
function forms(): string[] {
  const values = [oauth.client.client_secret, oauth.client.refresh_token, ...oauth.issued];
  return values.flatMap((v) => [
    v,
    encodeURIComponent(v),
    Buffer.from(v).toString('base64'),
    Buffer.from(`user=${DOVECOT_USER}\x01auth=Bearer ${v}\x01\x01`).toString('base64'),
  ]);
}

async function expectNoSecretAnywhere(): Promise<void> {
  const entries = await fs.readdir(path.join(dir, 'state'), { withFileTypes: true, recursive: true });
  const files = entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
  expect(files.length).toBeGreaterThan(5); // runs, audit, feed events, decisions, credentials were written
  const texts = [
    ...(await Promise.all(files.map(async (f) => ({ where: f, text: await fs.readFile(f, 'latin1') })))),
    ...output.map((text, i) => ({ where: `cli output ${i}`, text })),
  ];
  for (const { where, text } of texts)
    for (const form of forms())
      expect({ where, leaked: text.includes(form) }).toEqual({ where, leaked: false });
}

it('a whole run logs in over OAuth2, and no token or secret is stored, logged or shown', async () => {
  const run = await cli(['run', 'inbox-triage', '--json']);
  expect(run.code).toBe(0);
  const result = JSON.parse(run.stdout) as { status: string; acted: number };
  expect(result.status).toBe('waiting');
  expect(result.acted).toBeGreaterThan(0);
  expect((await messageIds(dovecot, 'Archive')).length).toBeGreaterThan(0);
  expect(oauth.issued.length).toBeGreaterThan(0);
  expect(oauth.introspected.every((t) => oauth.issued.includes(t))).toBe(true);
  await cli(['audit']);
  await cli(['pending']);
  await expectNoSecretAnywhere();
});

it('a revoked refresh token fails the run with one line to re-authorise, and acts on nothing', async () => {
  oauth.revoke();
  const inbox = await messageIds(dovecot, 'INBOX');
  const run = await cli(['run', 'inbox-triage']);
  expect(run.code).not.toBe(0);
  const host = new URL(oauth.url).host;
  expect(run.stderr).toContain(
    `the refresh token was refused by ${host} (invalid_grant): re-authorise and store the new one with \`handoff credentials set GMAIL_OAUTH\``,
  );
  expect(await messageIds(dovecot, 'INBOX')).toEqual(inbox);
  expect(await messageIds(dovecot, 'Archive')).toEqual([]);
  const audit = await cliJson<{ outcome: string }[]>(['audit'], env);
  expect(audit.filter((e) => e.outcome === 'acted')).toEqual([]);
  await expectNoSecretAnywhere();
});
