/**
 * A real Dovecot for the IMAP tests (DESIGN.md §6, "IMAP in tests"): started per test file
 * in a temp dir, on a free loopback port, stopped by the pid in base_dir/master.pid.
 */
import { spawn } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect as netConnect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';

export const DOVECOT_USER = 'me@example.com';
export const DOVECOT_PASSWORD = 'dovecot-test-secret';

export interface Dovecot {
  host: string;
  port: number;
  dir: string;
  /** A logged-in client for checking what the server holds (the caller logs out). */
  connect(): Promise<ImapFlow>;
  /** APPENDs raw messages to a mailbox (INBOX by default). */
  append(messages: readonly (string | Buffer)[], mailbox?: string): Promise<void>;
  /** The raw messages in a mailbox. */
  messages(mailbox: string): Promise<string[]>;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Dovecot's oauth2 passdb: XOAUTH2 logins checked by POSTing the token to `introspectionUrl`. */
function oauth2Settings(
  dir: string,
  introspectionUrl: string | undefined,
): { mechanisms: string; passdb: string } {
  if (!introspectionUrl) return { mechanisms: 'plain login', passdb: '' };
  return {
    mechanisms: 'plain login xoauth2',
    passdb: `passdb {
  driver = oauth2
  mechanisms = xoauth2
  args = ${dir}/dovecot-oauth2.conf.ext
}
`,
  };
}

function oauth2Config(introspectionUrl: string): string {
  return `introspection_url = ${introspectionUrl}
introspection_mode = post
username_attribute = username
active_attribute = active
active_value = true
`;
}

function config(dir: string, port: number, specialUse: boolean, introspectionUrl?: string): string {
  const oauth2 = oauth2Settings(dir, introspectionUrl);
  const folders = specialUse
    ? ['Archive', 'Trash', 'Drafts']
        .map((name) => `  mailbox ${name} {\n    special_use = \\${name}\n    auto = create\n  }`)
        .join('\n')
    : '';
  return `protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
ssl = no
disable_plaintext_auth = no
first_valid_uid = 8
first_valid_gid = 8
default_login_user = dovenull
default_internal_user = dovecot
auth_mechanisms = ${oauth2.mechanisms}
auth_failure_delay = 0
${oauth2.passdb}passdb {
  driver = static
  mechanisms = plain login
  args = password=${DOVECOT_PASSWORD}
}
userdb {
  driver = static
  args = uid=mail gid=mail home=${dir}/home
}
mail_location = maildir:${dir}/mail:LAYOUT=fs
namespace inbox {
  inbox = yes
  separator = /
${folders}
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
service imap-login {
  chroot =
}
`;
}

/** Options of `startDovecot`. */
export interface DovecotOptions {
  /** false leaves out Archive/Trash/Drafts. */
  specialUse?: boolean;
  /** Fills the INBOX (a Maildir at the given path) before the server starts: faster than APPEND. */
  seedInbox?: (maildir: string) => Promise<void>;
  /** Also accepts XOAUTH2 logins whose token this URL says is live. */
  oauth2IntrospectionUrl?: string;
}

/** Starts Dovecot in a fresh temp dir, the INBOX empty unless `seedInbox` fills it. */
export async function startDovecot(options: DovecotOptions = {}): Promise<Dovecot> {
  const dir = await mkdtemp(join(tmpdir(), 'handoff-dovecot-'));
  await chmod(dir, 0o755); // the mail processes run as mail and must pass through
  const port = await freePort();
  for (const sub of ['run', 'state', 'home', 'mail']) await mkdir(join(dir, sub), { recursive: true });
  if (options.seedInbox) await options.seedInbox(join(dir, 'mail'));
  await chownTree(join(dir, 'mail'), 8, 8);
  await chown(join(dir, 'home'), 8, 8);
  const conf = join(dir, 'dovecot.conf');
  await writeFile(conf, config(dir, port, options.specialUse ?? true, options.oauth2IntrospectionUrl));
  if (options.oauth2IntrospectionUrl)
    await writeFile(join(dir, 'dovecot-oauth2.conf.ext'), oauth2Config(options.oauth2IntrospectionUrl));
  // The master forks into the background and keeps no pipe of ours open (stdio ignored).
  await new Promise<void>((resolve, reject) => {
    const child = spawn('/usr/sbin/dovecot', ['-c', conf], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`dovecot exited ${code}`))));
  });
  const host = '127.0.0.1';
  const connect = async (): Promise<ImapFlow> => {
    const client = new ImapFlow({
      host,
      port,
      secure: false,
      auth: { user: DOVECOT_USER, pass: DOVECOT_PASSWORD },
      logger: false,
    });
    await client.connect();
    return client;
  };
  await waitForPort(host, port);
  return {
    host,
    port,
    dir,
    connect,
    async append(messages, mailbox = 'INBOX') {
      const client = await connect();
      try {
        for (const m of messages) await client.append(mailbox, m, []);
      } finally {
        await client.logout();
      }
    },
    async messages(mailbox) {
      const client = await connect();
      try {
        const lock = await client.getMailboxLock(mailbox);
        try {
          const out: string[] = [];
          if ((client.mailbox && client.mailbox.exists) === 0) return out;
          for await (const m of client.fetch('1:*', { source: true })) out.push(m.source?.toString() ?? '');
          return out;
        } finally {
          lock.release();
        }
      } finally {
        await client.logout();
      }
    },
    async stop() {
      const pid = Number((await readFile(join(dir, 'run', 'master.pid'), 'utf8').catch(() => '')).trim());
      if (pid > 0) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // already gone
        }
        for (let i = 0; i < 50 && alive(pid); i += 1) await new Promise((r) => setTimeout(r, 20));
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** chown of a directory and everything under it. */
async function chownTree(root: string, uid: number, gid: number): Promise<void> {
  await chown(root, uid, gid);
  for (const entry of await readdir(root, { recursive: true })) await chown(join(root, entry), uid, gid);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForPort(host: string, port: number): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = netConnect(port, host, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`dovecot did not listen on ${host}:${port}`);
}
