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

/** Something named by id does not exist. */
export class NotFoundError extends HandoffError {}

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
