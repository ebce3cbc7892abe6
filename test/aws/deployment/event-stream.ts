/**
 * AWS's binary event-stream framing (what Bedrock's ConverseStream answers with): each
 * message is a prelude (total and headers length, CRC32), string headers, the payload and a
 * CRC32 of the whole. The SDK decodes it; this encodes the stub model's answer.
 */
import { crc32 } from 'node:zlib';

function header(name: string, value: string): Buffer {
  const n = Buffer.from(name, 'utf8');
  const v = Buffer.from(value, 'utf8');
  const out = Buffer.alloc(1 + n.length + 1 + 2 + v.length);
  out.writeUInt8(n.length, 0);
  n.copy(out, 1);
  out.writeUInt8(7, 1 + n.length); // string
  out.writeUInt16BE(v.length, 2 + n.length);
  v.copy(out, 4 + n.length);
  return out;
}

/** One `event` message of type `eventType` with a JSON payload. */
export function eventMessage(eventType: string, payload: unknown): Buffer {
  const headers = Buffer.concat([
    header(':event-type', eventType),
    header(':content-type', 'application/json'),
    header(':message-type', 'event'),
  ]);
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  const total = 12 + headers.length + body.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headers.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const message = Buffer.concat([prelude, headers, body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(message), 0);
  return Buffer.concat([message, crc]);
}
