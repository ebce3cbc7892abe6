import { types } from 'node:util';

/**
 * Typed errors. Expected outcomes are values; these are for the exceptional,
 * and each carries a message a person can act on.
 */
export class HandoffError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Input that a person or another system got wrong (maps to exit 1 / HTTP 4xx). */
export class InvalidInputError extends HandoffError {}

/** A list's `cursor` that this list never gave (maps to exit 2 / HTTP 400). */
export class InvalidCursorError extends InvalidInputError {}

/** Something named by id does not exist. */
export class NotFoundError extends HandoffError {}

/** A deleted rule asked back after its undo window (maps to exit 1 / HTTP 410 on the pages, 422 in the API). */
export class UndoExpiredError extends InvalidInputError {}

/** A conditional write lost to another writer; carries the record it lost to. */
export class VersionConflictError extends HandoffError {
  constructor(
    message: string,
    readonly current: Record<string, unknown> | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A create found the id already taken. */
export class RecordExistsError extends HandoffError {}

/** A decision was already answered (or expired); carries the stored decision. */
export class AlreadyDecidedError extends HandoffError {
  constructor(
    message: string,
    readonly decision: Record<string, unknown>,
  ) {
    super(message);
  }
}

/**
 * Whether a value is an Error, including one made in another realm (a vm context, a
 * worker), where `instanceof Error` is false.
 */
export function isError(value: unknown): value is Error {
  return value instanceof Error || types.isNativeError(value);
}

/** The message of an error, or the value as text when something other than an Error was thrown. */
export function errorMessage(error: unknown): string {
  return isError(error) ? error.message : String(error);
}
