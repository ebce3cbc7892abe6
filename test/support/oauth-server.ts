/**
 * A local OAuth2 provider for the XOAUTH2 tests: `POST /token` trades a refresh token for a
 * fresh access token (as Google's and Microsoft's endpoints do), and `POST /introspect` is
 * what Dovecot's oauth2 passdb asks whether a token it was handed is live and whose it is.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OAuthClient {
  client_id: string;
  client_secret: string;
  refresh_token: string;
}

export interface OAuthServer {
  url: string;
  tokenUrl: string;
  introspectionUrl: string;
  client: OAuthClient;
  /** The form bodies POSTed to /token, in order. */
  refreshes: URLSearchParams[];
  /** Every access token issued, in order. */
  issued: string[];
  /** The tokens Dovecot asked about. */
  introspected: string[];
  /** From now on /token answers 400 invalid_grant (a revoked refresh token). */
  revoke(): void;
  /**
   * From now on each refresh also issues a new refresh token and the one used stops working,
   * as Microsoft's endpoint may (`client.refresh_token` is always the live one).
   */
  rotate(on?: boolean): void;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the provider on a free loopback port for `user`; tokens live `expiresIn` seconds. */
export async function startOAuthServer(user: string, expiresIn = 3600): Promise<OAuthServer> {
  const client: OAuthClient = {
    client_id: `client-${randomBytes(4).toString('hex')}`,
    client_secret: `csecret_${randomBytes(12).toString('hex')}`,
    refresh_token: `rtoken_${randomBytes(16).toString('hex')}`,
  };
  const refreshes: URLSearchParams[] = [];
  const issued: string[] = [];
  const introspected: string[] = [];
  let revoked = false;
  let rotating = false;
  const server = createServer((request, response) => {
    void readBody(request).then((text) => {
      const form = new URLSearchParams(text);
      const json = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.method === 'POST' && request.url === '/token') {
        refreshes.push(form);
        const valid =
          !revoked &&
          form.get('grant_type') === 'refresh_token' &&
          form.get('client_id') === client.client_id &&
          form.get('client_secret') === client.client_secret &&
          form.get('refresh_token') === client.refresh_token;
        if (!valid)
          return json(400, {
            error: 'invalid_grant',
            // Real providers are not this careless; the line shown must not carry it either.
            error_description: `refresh token ${form.get('refresh_token') ?? ''} is expired or revoked`,
          });
        const token = `atoken_${randomBytes(16).toString('hex')}`;
        issued.push(token);
        if (!rotating) return json(200, { access_token: token, token_type: 'Bearer', expires_in: expiresIn });
        client.refresh_token = `rtoken_${randomBytes(16).toString('hex')}`;
        return json(200, {
          access_token: token,
          token_type: 'Bearer',
          expires_in: expiresIn,
          refresh_token: client.refresh_token,
        });
      }
      if (request.method === 'POST' && request.url === '/introspect') {
        const token = form.get('token') ?? '';
        introspected.push(token);
        return json(200, issued.includes(token) ? { active: true, username: user } : { active: false });
      }
      return json(404, { error: 'not_found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    tokenUrl: `${url}/token`,
    introspectionUrl: `${url}/introspect`,
    client,
    refreshes,
    issued,
    introspected,
    revoke: () => {
      revoked = true;
    },
    rotate: (on = true) => {
      rotating = on;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
