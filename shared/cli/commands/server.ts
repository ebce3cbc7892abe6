import type { Command } from 'commander';
import { InvalidInputError } from '../../errors/index.ts';
import { cliContext } from '../context.ts';

/** Adds `handoff start [--port N]`: the local server, until SIGINT/SIGTERM. */
export function registerServerCommands(program: Command): void {
  registerRunChild(program);
  program
    .command('start')
    .description('run the local server: status page, API, webhooks and schedules (127.0.0.1 only)')
    .option('--port <N>', 'port to listen on (default: $PORT, else 3000; 0 picks a free one)')
    .action(async (options: { port?: string }) => {
      const chosen = options.port === undefined ? undefined : parsePort(options.port);
      const { env, engine, platform } = await cliContext();
      const port = chosen ?? env.PORT;
      const { serve } = await import('../../web/serve.ts');
      // Each run in a child process, so the server answers during a long run (in-thread: tests).
      const runs = env.HANDOFF_RUNS_IN_THREAD ? 'thread' : 'child';
      const server = await serve({ env, engine, port, platform, runs });
      const signal = await new Promise<NodeJS.Signals>((resolve) => {
        const stop = (received: NodeJS.Signals) => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve(received);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      process.stderr.write(
        `handoff: ${signal}: stopping (waiting for running work; press Ctrl-C again to force)\n`,
      );
      const force = () => process.exit(130);
      process.once('SIGINT', force);
      process.once('SIGTERM', force);
      await server.close();
      process.off('SIGINT', force);
      process.off('SIGTERM', force);
      process.stderr.write('handoff: stopped\n');
    });
}

/** `handoff __run-child`: one run the local server hands over (see shared/web/run-child.ts); not for people. */
function registerRunChild(program: Command): void {
  program
    .command('__run-child', { hidden: true })
    .description('work one run the local server sends over IPC')
    .action(async () => {
      const { runChild } = await import('../../web/run-child.ts');
      try {
        await runChild();
      } finally {
        if (process.connected) process.disconnect();
        setTimeout(() => process.exit(), 1000).unref(); // a client's idle socket never holds it
      }
    });
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new InvalidInputError(`--port ${value} is not a port (0-65535)`);
  return port;
}
