/**
 * The environment a test gives a child process it starts (the CLI, an example, an MCP
 * server): a clean one, so the test says what the child sees, plus the variables that move
 * the clock when the suite runs a year ahead (`npm run test:clock-ahead`), so the child
 * lives on the same day as the test.
 */
const CLOCK_VARS = ['HANDOFF_TEST_CLOCK_DAYS', 'NODE_OPTIONS'];

export function childEnv(env: Record<string, string> = {}): Record<string, string> {
  const clock = process.env.HANDOFF_TEST_CLOCK_DAYS
    ? Object.fromEntries(
        CLOCK_VARS.flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])),
      )
    : {};
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...clock, ...env };
}
