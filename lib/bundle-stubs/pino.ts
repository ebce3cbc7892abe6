/** Stands in for pino in the Lambda bundles (see aliases.ts): imapflow's default logger is never made there. */
export default function pino(): never {
  throw new Error('pino is not shipped to Lambda: give imapflow a logger of its own or `logger: false`');
}
