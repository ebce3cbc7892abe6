/**
 * What the engine's functions do with their event: parse it (zod), call the engine, say
 * what happened. The files in lambdas/ only wire these to their clients.
 */
import type { EngineDeps } from '../runs/deps.ts';
import type { Step } from '../runs/dispatch.ts';
import { runStep } from '../runs/resume-run.ts';
import { summarise, type RunSummary } from '../runs/settle.ts';
import { startRun } from '../runs/start-run.ts';
import { parseEvent, ScheduleInputSchema, StepEventSchema } from './lambda-events.ts';

/** The trigger function: a schedule fired; the run starts here and its first step is dispatched. */
export async function triggerScheduledRun(engine: EngineDeps, event: unknown): Promise<RunSummary> {
  const input = parseEvent(ScheduleInputSchema, event, 'a schedule input {workflow_id, schedule}');
  const run = await startRun(engine, input.workflow_id, { kind: 'schedule', detail: input.schedule });
  return summarise(run);
}

export type StepResult = RunSummary | { ignored: true; reason: string };

/**
 * A node's function: runs the step a `handoff.step` event names. A step meant for
 * another node is logged and ignored (a routing mistake must not fail the run); a
 * duplicate or late delivery finds the run moved on and changes nothing.
 */
export function stepHandler(engine: EngineDeps, own: Step): (event: unknown) => Promise<StepResult> {
  return async (event) => {
    const { detail } = parseEvent(StepEventSchema, event, 'a handoff.step event');
    if (detail.node !== own) {
      const reason = `the ${own} function got the ${detail.node} step of run ${detail.run_id}; check the EventBridge rules`;
      console.warn(`handoff: ${reason}`);
      return { ignored: true, reason };
    }
    return summarise(await runStep(engine, detail.run_id, own));
  };
}
