import type { Model } from '@strands-agents/sdk';
import { InvalidInputError } from '../errors/index.ts';
import { OfflineModel } from './offline/offline-model.ts';

export type ModelRole = 'primary' | 'fallback';

export interface ModelFactory {
  (role: ModelRole): Model;
}

/** Builds the model for a role from HANDOFF_MODEL_PROVIDER. */
export function modelFactory(provider: string): ModelFactory {
  switch (provider) {
    case 'local':
      return () => new OfflineModel();
    default:
      throw new InvalidInputError(
        `HANDOFF_MODEL_PROVIDER=${provider} is not available in this build yet; use HANDOFF_MODEL_PROVIDER=local`,
      );
  }
}
