/**
 * Code the Lambda bundles replace with a stub. Packages (esbuild `alias`): code that imapflow
 * imports but that Handoff never reaches. pino is imapflow's default logger (Handoff always
 * gives it `logger: false` or its own); socks serves its `proxy` option (never set). Both
 * stay real on a laptop; on Lambda a call into one fails with one line.
 */
export const BUNDLE_ALIASES: Record<string, string> = {
  pino: './lib/bundle-stubs/pino.ts',
  socks: './lib/bundle-stubs/socks.ts',
};

/**
 * Modules of the project the Lambda bundles replace (by path from the repository root): the
 * AgentCore integrations need AWS permissions no function is granted (`needs('agentcore')`),
 * so on Lambda they are refused with one line.
 */
export const MODULE_STUBS: Record<string, string> = {
  'shared/integrations/agentcore-code-interpreter.ts': './lib/bundle-stubs/agentcore.ts',
};
