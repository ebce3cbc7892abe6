/**
 * One IMAP connection for one run step: bounded timeouts, the password (or an OAuth2
 * access token) from the credential store, and failures as one line that never carries a secret.
 */
import { ImapFlow } from 'imapflow';
import type { Credentials } from '../../credentials/credentials.ts';
import { redact, type Secret } from '../../credentials/secret.ts';
import { HandoffError, errorMessage } from '../../errors/index.ts';
import { SourceUnavailableError } from '../source.ts';
import { accessToken, forgetAccessToken } from './oauth.ts';
import type { ImapSourceConfig } from '../../workflows/schema.ts';

/** The IMAP server refused the login, has no such folder, or refused a command. */
export class ImapError extends HandoffError {}

/** The IMAP server cannot be reached, or the connection dropped: nothing known done. */
export class ImapUnavailableError extends SourceUnavailableError {}

/** Timeouts (ms): a server that accepts and says nothing fails the step, it never hangs it. */
export const IMAP_TIMEOUTS = { connect: 10_000, greeting: 10_000, socket: 60_000 };

/** Options for tests and the bench: shorter timeouts, a command counter. */
export interface ImapOptions {
  timeouts?: Partial<typeof IMAP_TIMEOUTS>;
  /** Called once per command sent (a round trip). */
  onCommand?: (command: string) => void;
}

/** Connects and logs in; throws an ImapError with one plain line. */
export async function connectImap(
  config: ImapSourceConfig,
  credentials: Credentials,
  options: ImapOptions = {},
): Promise<ImapFlow> {
  const where = `${config.host}:${config.port}`;
  const secret: Secret | undefined = await credentials.get(config.credential);
  if (!secret)
    throw new ImapError(
      `no credential ${config.credential} for the IMAP source: set it with \`handoff credentials set ${config.credential}\``,
    );
  const timeouts = { ...IMAP_TIMEOUTS, ...options.timeouts };
  const token =
    config.auth === 'oauth2'
      ? await accessToken(config, secret, {
          timeoutMs: timeouts.connect,
          // The old refresh token may stop working: the new one is kept where the old one was.
          onRotated: async (rotated) => void (await credentials.set(config.credential, rotated)),
        })
      : undefined;
  const secrets = token ? [secret, token] : [secret];
  const onCommand = options.onCommand;
  const client = new ImapFlow({
    host: config.host,
    port: config.port,
    secure: config.tls,
    auth: token
      ? { user: config.user, accessToken: token.reveal() }
      : { user: config.user, pass: secret.reveal() },
    logger: onCommand ? commandLogger(onCommand) : false,
    connectionTimeout: timeouts.connect,
    greetingTimeout: timeouts.greeting,
    socketTimeout: timeouts.socket,
    disableAutoIdle: true,
  });
  client.on('error', () => {}); // a dropped socket surfaces on the pending command instead
  try {
    await client.connect();
  } catch (error) {
    client.close();
    const line = redact(describeConnectError(error, config, where), secrets);
    const refused = (error as { authenticationFailed?: boolean }).authenticationFailed;
    if (refused && token) forgetAccessToken(config, secret);
    throw refused ? new ImapError(line, { cause: error }) : new ImapUnavailableError(line, { cause: error });
  }
  return client;
}

function describeConnectError(error: unknown, config: ImapSourceConfig, where: string): string {
  const e = error as { authenticationFailed?: boolean; code?: string; message?: string };
  if (e.authenticationFailed && config.auth === 'oauth2')
    return `IMAP login to ${where} as ${config.user} refused the OAuth2 access token: check the account allows IMAP and the app has IMAP access, then re-authorise into credential ${config.credential}`;
  if (e.authenticationFailed)
    return `IMAP login to ${where} as ${config.user} was refused: check the password in credential ${config.credential}`;
  if (config.auth === 'oauth2' && /Unsupported authentication mechanism/.test(errorMessage(error)))
    return `IMAP server ${where} does not offer OAuth2 login (XOAUTH2): use auth: password with an app password`;
  const text = `${e.code ?? ''} ${errorMessage(error)}`;
  if (/timeout/i.test(text)) return `IMAP server ${where} did not answer in time (is it an IMAP port?)`;
  if (/wrong version number|ssl|tls|EPROTO/i.test(text))
    return config.tls
      ? `TLS handshake with ${where} failed: is it a plain-text port? Use the server's TLS port (usually 993)`
      : `IMAP ${where} failed: ${errorMessage(error)}`;
  if (/ECONNREFUSED/.test(text))
    return `IMAP server ${where} refused the connection (is the host and port right?)`;
  if (/ENOTFOUND|EAI_AGAIN/.test(text)) return `IMAP host ${config.host} was not found`;
  return `IMAP ${where} failed: ${errorMessage(error)}`;
}

/** An imapflow logger that reports each command it sends (its `src: 'c'` debug lines). */
function commandLogger(onCommand: (command: string) => void) {
  const ignore = () => {};
  return {
    debug: (entry: { src?: string; msg?: string }) => {
      if (entry.src === 'c' && entry.msg && !entry.msg.startsWith('(*')) onCommand(entry.msg);
    },
    trace: ignore,
    info: ignore,
    warn: ignore,
    error: ignore,
  };
}
