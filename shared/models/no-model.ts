import { HandoffError } from '../errors/index.ts';
import type { ModelFactory } from './provider.ts';
import { TurnModel, type PlannedTurn } from './turn-model.ts';

/** A model call made where no model may be called. */
export class NoModelHereError extends HandoffError {}

/** Stands in for the model in a host that makes no model calls: built like one, refuses to be called. */
class NoModel extends TurnModel {
  constructor(private readonly why: string) {
    super('none');
  }

  protected plan(): PlannedTurn {
    throw new NoModelHereError(this.why);
  }
}

/**
 * The model factory of a host that must never call a model (a Lambda function on the
 * request path, or one not bound to the model provider): its graph can still be built
 * (a trigger step builds the executor it never runs), and any call fails with `why`.
 * Loads no provider code.
 */
export function noModels(why: string): ModelFactory {
  return async () => new NoModel(why);
}
