/** Stands in for socks in the Lambda bundles (see aliases.ts): no IMAP connection goes through a proxy there. */
export class SocksClient {
  /** Always fails: a SOCKS proxy is not supported on Lambda. */
  static createConnection(): never {
    throw new Error('socks is not shipped to Lambda: an IMAP source cannot use a proxy there');
  }
}
