/**
 * OAuth2 (XOAUTH2) for the IMAP source: the stored client id, secret and refresh token are
 * traded at a local token endpoint, and Dovecot's oauth2 passdb verifies the access token
 * by introspection at that same server, so the login is really checked, not just sent.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFile, readdir } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Credentials } from '../../../shared/credentials/credentials.ts';
import { LocalCipher } from '../../../shared/credentials/local-cipher.ts';
import { Secret } from '../../../shared/credentials/secret.ts';
import { emit, feed } from '../../../shared/events/feed.ts';
import { startRun } from '../../../shared/runs/start-run.ts';
import { parseWorkflow } from '../../../shared/workflows/load.ts';
import { saveWorkflow } from '../../../shared/workflows/repository.ts';
import { renderMessage } from '../../../shared/sources/maildir/generate.ts';
import { ImapSource } from '../../../shared/sources/imap/imap-source.ts';
import { forgetAccessToken, tokenUrl } from '../../../shared/sources/imap/oauth.ts';
import { JsonFileStore } from '../../../shared/store/json-file-store.ts';
import type { ImapSourceConfig } from '../../../shared/workflows/schema.ts';
import { DOVECOT_USER, startDovecot, type Dovecot } from '../../support/dovecot.ts';
import { imapConfig } from '../../support/imap-fixture.ts';
import { engineFixture } from '../../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../../support/scripted-model.ts';
import { startOAuthServer, type OAuthServer } from '../../support/oauth-server.ts';

const CREDENTIAL = 'TEST_IMAP_OAUTH';

let oauth: OAuthServer;
let dovecot: Dovecot;
let dir: string;
let credentials: Credentials;

beforeAll(async () => {
  oauth = await startOAuthServer(DOVECOT_USER);
  dovecot = await startDovecot({ oauth2IntrospectionUrl: oauth.introspectionUrl });
  await dovecot.append([
    renderMessage({
      from: 'ana@example.org',
      to: DOVECOT_USER,
      subject: 'Hello over OAuth2',
      body: 'Hi\n',
      date: new Date('2025-03-10T09:00:00Z'),
      messageId: '<oauth1@example.org>',
    }),
  ]);
  dir = await mkdtemp(join(tmpdir(), 'handoff-imap-oauth-'));
  credentials = new Credentials(
    new JsonFileStore(join(dir, 'state')),
    LocalCipher.inStateDir(join(dir, 'state')),
  );
});
afterAll(async () => {
  await dovecot.stop();
  await oauth.close();
  await rm(dir, { recursive: true, force: true });
});

/** A source config for Dovecot with OAuth2 at the local token endpoint (fresh client per test: no shared cache). */
function oauthConfig(over: Partial<ImapSourceConfig> = {}): ImapSourceConfig {
  return imapConfig(dovecot, {
    credential: CREDENTIAL,
    auth: 'oauth2',
    oauth: { provider: 'custom', token_url: oauth.tokenUrl },
    ...over,
  });
}

async function listIds(config: ImapSourceConfig, commands: string[] = []): Promise<string[]> {
  const source = new ImapSource(config, credentials, null, { onCommand: (c) => commands.push(c) });
  try {
    const refs = await source.listRefs();
    const reads = await source.readMany(refs);
    return reads.flatMap((r) => (r.ok ? [r.item.id] : []));
  } finally {
    await source.close();
  }
}

describe('IMAP with OAuth2 (XOAUTH2) on Dovecot', () => {
  const undo: (() => void)[] = [];
  const afterThis = (f: () => void) => undo.push(f);
  afterEach(() => {
    for (const f of undo.splice(0)) f();
  });
  beforeEach(async () => {
    await credentials.set(CREDENTIAL, new Secret(JSON.stringify(oauth.client)));
  });

  it('logs in with an access token refreshed at the token URL, which Dovecot verifies', async () => {
    const before = oauth.refreshes.length;
    const commands: string[] = [];
    expect(await listIds(oauthConfig(), commands)).toEqual(['<oauth1@example.org>']);
    // The SASL exchange is XOAUTH2 (Dovecot also offers PLAIN), and its payload is never logged.
    expect(commands).toContainEqual(expect.stringMatching(/^\S+ AUTHENTICATE XOAUTH2\b/));
    const token = oauth.issued.at(-1)!;
    const sasl = Buffer.from(`user=${DOVECOT_USER}\x01auth=Bearer ${token}\x01\x01`).toString('base64');
    for (const c of commands) expect([c.includes(token), c.includes(sasl)]).toEqual([false, false]);
    const form = oauth.refreshes[before]!;
    expect(Object.fromEntries(form)).toEqual({
      grant_type: 'refresh_token',
      client_id: oauth.client.client_id,
      client_secret: oauth.client.client_secret,
      refresh_token: oauth.client.refresh_token,
    });
    // Dovecot asked the provider about exactly the token the refresh issued.
    expect(oauth.introspected).toContain(oauth.issued.at(-1));
  });

  it('reuses the access token within the process until it is about to expire', async () => {
    await listIds(oauthConfig());
    const refreshes = oauth.refreshes.length;
    await listIds(oauthConfig());
    await listIds(oauthConfig());
    expect(oauth.refreshes.length).toBe(refreshes);
  });

  it("refreshes at the provider's token URL, asking Microsoft for the IMAP scope; token_url overrides it", async () => {
    const base = imapConfig(dovecot, { auth: 'oauth2' });
    expect(tokenUrl({ ...base, oauth: { provider: 'google' } })).toBe('https://oauth2.googleapis.com/token');
    expect(tokenUrl({ ...base, oauth: { provider: 'microsoft' } })).toBe(
      'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    );
    const before = oauth.refreshes.length;
    await listIds(oauthConfig({ oauth: { provider: 'microsoft', token_url: oauth.tokenUrl } }));
    expect(oauth.refreshes[before]?.get('scope')).toBe(
      'https://outlook.office.com/IMAP.AccessAsUser.All offline_access',
    );
  });

  it('a refresh token the provider rotates is saved in the credential, so the next refresh uses the new one', async () => {
    const first = { ...oauth.client };
    forgetAccessToken(oauthConfig(), new Secret(JSON.stringify(first))); // refresh now, not from this process's cache
    oauth.rotate();
    afterThis(() => oauth.rotate(false));
    expect(await listIds(oauthConfig())).toEqual(['<oauth1@example.org>']);
    expect(oauth.client.refresh_token).not.toBe(first.refresh_token);
    const saved = JSON.parse((await credentials.get(CREDENTIAL))!.reveal()) as typeof first;
    expect(saved).toEqual({ ...first, refresh_token: oauth.client.refresh_token });
    // The old refresh token no longer works; the saved one does (and is rotated again).
    const before = oauth.refreshes.length;
    expect(await listIds(oauthConfig())).toEqual(['<oauth1@example.org>']);
    expect(oauth.refreshes[before]?.get('refresh_token')).toBe(saved.refresh_token);
    expect(JSON.parse((await credentials.get(CREDENTIAL))!.reveal())).toMatchObject({
      refresh_token: oauth.client.refresh_token,
    });
  });

  it('a refresh token the endpoint refuses fails with one line naming the host, and no secret in it', async () => {
    const refused = await startOAuthServer(DOVECOT_USER);
    refused.revoke();
    try {
      await credentials.set(CREDENTIAL, new Secret(JSON.stringify(refused.client)));
      const error = await listIds(
        oauthConfig({ oauth: { provider: 'custom', token_url: refused.tokenUrl } }),
      ).then(
        () => null,
        (e: unknown) => e as Error,
      );
      const host = new URL(refused.url).host;
      expect(error?.message).toBe(
        `the refresh token was refused by ${host} (invalid_grant): re-authorise and store the new one with \`handoff credentials set ${CREDENTIAL}\``,
      );
      const shown = `${error?.message} ${String(error?.stack)} ${JSON.stringify(error)}`;
      for (const value of Object.values(refused.client).slice(1)) expect(shown).not.toContain(value);
    } finally {
      await refused.close();
    }
  });

  // Refused logins last: Dovecot's auth penalty slows the logins from this address after them.
  it('an access token Dovecot does not accept is one line, and the next connection refreshes', async () => {
    const stranger = await startOAuthServer('someone-else@example.com');
    try {
      // The provider issues tokens, but Dovecot's introspection (at `oauth`) has never seen them.
      await credentials.set(CREDENTIAL, new Secret(JSON.stringify(stranger.client)));
      const config = oauthConfig({ oauth: { provider: 'custom', token_url: stranger.tokenUrl } });
      await expect(listIds(config)).rejects.toThrow(
        `IMAP login to ${dovecot.host}:${dovecot.port} as ${DOVECOT_USER} refused the OAuth2 access token`,
      );
      await expect(listIds(config)).rejects.toThrow('refused the OAuth2 access token');
      expect(stranger.refreshes).toHaveLength(2); // the refused token was not reused
    } finally {
      await stranger.close();
    }
  });

  it('a credential that is not the OAuth2 JSON is one line that does not echo it', async () => {
    await credentials.set(CREDENTIAL, new Secret('just-a-password-9f8e7d'));
    const error = await listIds(oauthConfig()).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toBe(
      `credential ${CREDENTIAL} must hold JSON {"client_id", "client_secret", "refresh_token"} for auth: oauth2`,
    );
  });

  it('a token endpoint that never answers fails within the connect timeout', async () => {
    const silent = createServer(() => {}); // accepts, reads, says nothing
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const config = oauthConfig({
        oauth: { provider: 'custom', token_url: `http://127.0.0.1:${port}/token` },
      });
      const source = new ImapSource(config, credentials, null, { timeouts: { connect: 300 } });
      const started = Date.now();
      await expect(source.listRefs()).rejects.toThrow(
        `the OAuth2 token endpoint 127.0.0.1:${port} did not answer in time`,
      );
      expect(Date.now() - started).toBeLessThan(3000);
      await source.close();
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('a token endpoint that is not there fails as unreachable, naming the host only', async () => {
    const config = oauthConfig({ oauth: { provider: 'custom', token_url: 'http://127.0.0.1:9/token' } });
    await expect(listIds(config)).rejects.toThrow(
      'the OAuth2 token endpoint 127.0.0.1:9 could not be reached',
    );
  });
});

/** Captures every console call and every write to stdout/stderr. */
function captureOutput(): string[] {
  const lines: string[] = [];
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const)
    jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
    });
  for (const stream of [process.stdout, process.stderr])
    jest.spyOn(stream, 'write').mockImplementation(((chunk: unknown) => {
      lines.push(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
      return true;
    }) as typeof stream.write);
  return lines;
}

describe('an OAuth2 IMAP run in process', () => {
  it('leaves no token, client secret or refresh token in records, feed events or logs, also when refused', async () => {
    const provider = await startOAuthServer(DOVECOT_USER);
    const fixture = await engineFixture({
      messages: [],
      model: () =>
        new ScriptedModel(executorScript(() => ({ action: 'archive', confidence: 0.95, reasoning: 'fine' }))),
    });
    const output = captureOutput();
    process.env.HANDOFF_DEBUG = '1';
    try {
      fixture.deps.emit = emit; // the real, process-wide feed
      await fixture.deps.credentials.set(CREDENTIAL, new Secret(JSON.stringify(oauth.client)));
      const source = `{ type: imap, host: 127.0.0.1, port: ${dovecot.port}, tls: false, user: ${DOVECOT_USER}, credential: ${CREDENTIAL}, auth: oauth2, oauth: { provider: custom, token_url: "${provider.tokenUrl}" } }`;
      const yaml = `id: oauth-mail\nname: OAuth mail\ninstructions: Archive everything.\ntrigger: { manual: true }\nsource: ${source}\nactions: [{ name: archive }]\nhuman_gate: { options: [archive, skip] }\n`;
      await saveWorkflow(fixture.store, parseWorkflow(yaml, 'oauth-mail.yaml'));
      // The provider issues tokens Dovecot (asking `oauth`) does not know: the login is refused.
      await fixture.deps.credentials.set(CREDENTIAL, new Secret(JSON.stringify(provider.client)));
      const refusedLogin = await startRun(fixture.deps, 'oauth-mail', { kind: 'manual', detail: null });
      provider.revoke();
      const refusedRefresh = await startRun(fixture.deps, 'oauth-mail', { kind: 'manual', detail: null });
      expect([refusedLogin.status, refusedRefresh.status]).toEqual(['failed', 'failed']);
      expect(refusedLogin.error).toContain('refused the OAuth2 access token');
      expect(refusedRefresh.error).toContain('the refresh token was refused by');
      // And a run that works, with the right client.
      await fixture.deps.credentials.set(CREDENTIAL, new Secret(JSON.stringify(oauth.client)));
      const yamlOk = yaml.replace(provider.tokenUrl, oauth.tokenUrl);
      await saveWorkflow(fixture.store, parseWorkflow(yamlOk, 'oauth-mail.yaml'));
      const ok = await startRun(fixture.deps, 'oauth-mail', { kind: 'manual', detail: null });
      expect(ok.status).toBe('completed');

      const secrets = [
        ...[oauth.client, provider.client].flatMap((c) => [c.client_secret, c.refresh_token]),
        ...oauth.issued,
        ...provider.issued,
      ];
      const forms = secrets.flatMap((v) => [v, encodeURIComponent(v), Buffer.from(v).toString('base64')]);
      const entries = await readdir(fixture.dir, { withFileTypes: true, recursive: true });
      const texts = await Promise.all(
        entries.filter((e) => e.isFile()).map(async (e) => readFile(join(e.parentPath, e.name), 'latin1')),
      );
      const events = [refusedLogin, refusedRefresh, ok].map((r) => JSON.stringify(feed.history(r.id)));
      expect(events.join('')).toContain('refresh token was refused');
      for (const [where, text] of [
        ['stored records', texts.join('\n')],
        ['the feed', events.join('\n')],
        ['console and streams', output.join('\n')],
      ] as const)
        for (const form of forms)
          expect({ where, leaked: text.includes(form) }).toEqual({ where, leaked: false });
    } finally {
      delete process.env.HANDOFF_DEBUG;
      jest.restoreAllMocks();
      await provider.close();
      await fixture.cleanup();
    }
  });
});
