/**
 * AWS clients a Lambda container makes on first use: the SDK package of a client that a
 * function may never need (SNS, Secrets Manager, EventBridge) is imported then, not at
 * every cold start. An adapter takes either a client (tests, a host that has one) or one
 * of these.
 */

/** A client, or how to make it on first use. */
export type ClientRef<T extends object> = T | (() => Promise<T>);

/** `make` run once, on first call; a failure is not kept (the next call tries again). */
export function onFirstUse<T extends object>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
}

/** The client a ref names, made now if it had not been. */
export async function clientOf<T extends object>(ref: ClientRef<T>): Promise<T> {
  return typeof ref === 'function' ? ref() : ref;
}
