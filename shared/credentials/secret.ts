import { inspect } from 'node:util';
import { InvalidInputError, errorMessage } from '../errors/index.ts';

/** What a secret prints as, wherever it ends up: logs, events, audit, errors, JSON. */
export const REDACTED = '[redacted]';

/**
 * A credential value. Only `reveal()` gives the value back; every way of printing
 * it (string, JSON, util.inspect, template literal) prints `[redacted]`.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    if (typeof value !== 'string' || value === '')
      throw new InvalidInputError('a credential value must be a non-empty string');
    this.#value = value;
  }

  /** The value itself: call this only where it is handed to the service that needs it. */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [Symbol.toPrimitive](): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

/** The forms a value takes when a service echoes it: as is, URL-encoded, JSON-escaped, base64. */
function variants(value: string): string[] {
  const forms = new Set([
    value,
    encodeURIComponent(value),
    JSON.stringify(value).slice(1, -1),
    Buffer.from(value, 'utf8').toString('base64'),
  ]);
  return [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
}

/** `text` with every occurrence of each secret (in its common encodings) replaced by `[redacted]`. */
export function redact(text: string, secrets: Iterable<Secret | string>): string {
  let out = text;
  for (const secret of secrets) {
    const value = typeof secret === 'string' ? secret : secret.reveal();
    if (value === '') continue;
    for (const form of variants(value)) out = out.split(form).join(REDACTED);
  }
  return out;
}

/** An error's message, redacted: what may be shown of an integration's failure. */
export function redactedMessage(error: unknown, secrets: Iterable<Secret | string>): string {
  const message = errorMessage(error);
  return redact(message, secrets);
}
