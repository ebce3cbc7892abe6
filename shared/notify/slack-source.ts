/**
 * Where the Slack settings come from: the environment (SLACK_BOT_TOKEN, SLACK_CHANNEL), else
 * the workspace's credentials of the same names, set on the Credentials page. Only those two
 * names are ever read, one at a time.
 */
import type { Credentials } from '../credentials/credentials.ts';

const NAMES = ['SLACK_BOT_TOKEN', 'SLACK_CHANNEL'] as const;

/** `env` with any Slack setting it lacks filled from the workspace's credentials. */
export async function slackSource(
  credentials: Pick<Credentials, 'get'> | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<NodeJS.ProcessEnv> {
  const source: NodeJS.ProcessEnv = { ...env };
  if (!credentials) return source;
  for (const name of NAMES)
    if (!source[name]) {
      const stored = await credentials.get(name).catch(() => undefined);
      if (stored) source[name] = stored.reveal();
    }
  return source;
}
