/**
 * API Gateway's check of a SigV4-signed request (IAM auth): the signature is computed again
 * from the request as received (the headers it says it signed, its body) with the caller's
 * secret, and must be the one sent. Anything else is refused, as AWS refuses it.
 */
import { createHash, createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';

type Data = string | ArrayBuffer | ArrayBufferView;
const bytes = (d: Data) =>
  typeof d === 'string'
    ? d
    : ArrayBuffer.isView(d)
      ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength)
      : new Uint8Array(d);

/** SHA-256 (HMAC when given a secret) as SignatureV4 wants it (the README's snippet, the same). */
export class Sha256 {
  private readonly hash;
  constructor(secret?: Data) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: Data): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/;

export interface SignedRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * The access key id that signed `req` for `service` in `region`, or why the signature does
 * not hold (unknown key, another service or region, a signature that does not match).
 */
export async function verifySigV4(
  req: SignedRequest,
  secretOf: (accessKeyId: string) => string | undefined,
  region: string,
  service: string,
): Promise<{ accessKeyId: string } | { refused: string }> {
  const auth = AUTHORIZATION.exec(String(req.headers.authorization ?? ''));
  if (!auth) return { refused: 'Missing Authentication Token' };
  const [, accessKeyId, , signedRegion, signedService, signedHeaders, signature] =
    auth as unknown as string[];
  const secretAccessKey = secretOf(accessKeyId!);
  if (secretAccessKey === undefined)
    return { refused: 'The security token included in the request is invalid.' };
  if (signedRegion !== region || signedService !== service)
    return { refused: `Credential should be scoped to a valid region (${region}) and service (${service})` };
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const when = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!when)
    return { refused: 'Authorization header requires existence of either a X-Amz-Date or a Date header.' };
  const [, y, mo, d, h, mi, s] = when.map(Number) as number[];
  const signingDate = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
  const headers: Record<string, string> = {};
  for (const name of signedHeaders!.split(';')) {
    const value = req.headers[name];
    if (value === undefined) return { refused: `the signed header ${name} is missing` };
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const token = headers['x-amz-security-token'];
  const signer = new SignatureV4({
    service,
    region,
    credentials: { accessKeyId: accessKeyId!, secretAccessKey, ...(token ? { sessionToken: token } : {}) },
    sha256: Sha256,
    applyChecksum: false,
  });
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of req.url.searchParams) {
    const before = query[k];
    query[k] = before === undefined ? v : [...(Array.isArray(before) ? before : [before]), v];
  }
  const signed = await signer.sign(
    {
      method: req.method,
      protocol: req.url.protocol,
      hostname: req.url.hostname,
      ...(req.url.port ? { port: Number(req.url.port) } : {}),
      path: req.url.pathname,
      query,
      headers,
      ...(req.body.length ? { body: req.body } : {}),
    },
    { signingDate },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization))?.[1];
  if (expected !== signature)
    return {
      refused:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    };
  return { accessKeyId: accessKeyId! };
}
