/**
 * A loopback TCP proxy in front of an IMAP server that counts the commands clients send
 * (one tagged line each; literals such as an APPEND's message are skipped, not counted).
 * imapflow waits for each tagged reply before the next command, so commands = round trips.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** Commands seen through the proxy: the total and by name (`UID FETCH`, `SELECT`, ...). */
export interface CommandCount {
  total: number;
  byName: Record<string, number>;
}

/** A running counting proxy. */
export interface ImapCounter {
  host: string;
  port: number;
  count: CommandCount;
  /** Zeroes the counts (say, after a warm-up). */
  reset(): void;
  stop(): Promise<void>;
}

/** Splits a client's byte stream into commands, skipping `{n}` / `{n+}` literals. */
export class CommandParser {
  private pending = Buffer.alloc(0);
  private literal = 0;
  private continuing = false;

  constructor(private readonly onCommand: (name: string) => void) {}

  /** Feeds bytes as they arrive. */
  push(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    for (;;) {
      if (this.literal > 0) {
        const take = Math.min(this.literal, this.pending.length);
        this.pending = this.pending.subarray(take);
        this.literal -= take;
        if (this.literal > 0) return;
      }
      const end = this.pending.indexOf('\r\n');
      if (end < 0) return;
      const line = this.pending.subarray(0, end).toString('latin1');
      this.pending = this.pending.subarray(end + 2);
      if (!this.continuing) this.onCommand(commandName(line));
      const size = /\{(\d+)\+?\}$/.exec(line);
      this.literal = size ? Number(size[1]) : 0;
      this.continuing = size !== null;
    }
  }
}

function commandName(line: string): string {
  const words = line.split(' ');
  const name = (words[1] ?? '').toUpperCase();
  return name === 'UID' ? `UID ${(words[2] ?? '').toUpperCase()}` : name || '(continuation)';
}

/** Starts a proxy on a free loopback port forwarding to `target`. */
export async function startImapCounter(target: { host: string; port: number }): Promise<ImapCounter> {
  const count: CommandCount = { total: 0, byName: {} };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const parser = new CommandParser((name) => {
      count.total += 1;
      count.byName[name] = (count.byName[name] ?? 0) + 1;
    });
    client.on('data', (chunk: Buffer) => {
      parser.push(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', drop).on('error', drop);
    upstream.on('close', drop).on('error', drop);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    host: '127.0.0.1',
    port,
    count,
    reset() {
      count.total = 0;
      count.byName = {};
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
