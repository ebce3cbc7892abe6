import type { Model } from '@strands-agents/sdk';
import { InvalidInputError } from '../errors/index.ts';

export type ModelRole = 'primary' | 'fallback';

/** Makes the model for a role; async so a host that never runs an agent never loads the SDK. */
export interface ModelFactory {
  (role: ModelRole): Promise<Model>;
}

/** Builds the model for a role from HANDOFF_MODEL_PROVIDER. */
export function modelFactory(provider: string): ModelFactory {
  switch (provider) {
    case 'local':
      return async () => new (await import('./offline/offline-model.ts')).OfflineModel();
    default:
      throw new InvalidInputError(
        `HANDOFF_MODEL_PROVIDER=${provider} is not available in this build yet; use HANDOFF_MODEL_PROVIDER=local`,
      );
  }
}
