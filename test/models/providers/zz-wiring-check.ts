import type { EngineDeps } from '../../../shared/runs/deps.ts';
import { routeModelEvents, type ModelEvent, type ModelEventKind } from '../../../shared/models/model-events.ts';
import type { FeedEvent } from '../../../shared/events/feed.ts';
type Kinds = FeedEvent['kind'] | ModelEventKind;
type Deps = Omit<EngineDeps, 'emit'> & {
  emit: (channel: string, kind: Kinds, text: string, data?: Record<string, unknown>) => void;
  repairs?: (runId: string, event: ModelEvent) => void;
};
export async function check(deps: Deps, runId: string) {
  return deps.models('primary', { onEvent: routeModelEvents(runId, deps) });
}
