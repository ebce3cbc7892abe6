/** The events the Lambda functions receive, as zod schemas; a bad event is one line. */
import { z } from 'zod';
import { InvalidInputError } from '../errors/index.ts';
import type { Step } from '../runs/dispatch.ts';
import type { WorkflowChange } from '../web/workflow-routes.ts';
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';

/** The `source` of every event Handoff puts on its bus. */
export const EVENT_SOURCE = 'handoff';
/** A step of a run for another function: detail `{run_id, node}`. */
export const STEP_DETAIL_TYPE = 'handoff.step';
/** A workflow was saved or removed through the API: detail `{workflow_id, change}`. */
export const WORKFLOW_DETAIL_TYPE = 'handoff.workflow';

/** Learning from an answer, for the agent function: detail `{decision_id}`. */
export const LEARN_DETAIL_TYPE = 'handoff.learn';
/** An answered item to carry out while its run still waits, for the resume function: detail `{decision_id}`. */
export const CARRY_DETAIL_TYPE = 'handoff.carry';
/** An assistant turn, for the agent function: detail `{chat_id, turn_id, message}`. */
export const CHAT_TURN_DETAIL_TYPE = 'handoff.chat-turn';

/** The detail of a `handoff.step` event. */
export interface StepDetail {
  run_id: string;
  node: Step;
  /** The run's workspace id (absent in events from before workspaces: `default`). */
  workspace?: string;
}

/** The detail of a `handoff.workflow` event. */
export interface WorkflowDetail {
  workflow_id: string;
  change: WorkflowChange;
  /** The workflow's workspace id (absent: `default`). */
  workspace?: string;
}

// Every Step, checked by the compiler, without loading the graph SDK that dispatch.ts imports.
const STEP_SET: Record<Step, true> = { executor: true, completer: true, resume: true };
const STEP_NAMES = Object.keys(STEP_SET) as [Step, ...Step[]];

const id = z.string().min(1).max(256);
/** A workspace id in an event; events from before workspaces carry none and mean `default`. */
const workspace = z.string().min(1).max(64).default(DEFAULT_WORKSPACE);

export const ScheduleInputSchema = z.object({
  workflow_id: id,
  schedule: z.string().min(1),
  /** When the schedule fired (Scheduler fills `<aws.scheduler.scheduled-time>` in); keys the run. */
  scheduled_time: z.iso.datetime().optional(),
  workspace,
});
export const StepEventSchema = z.object({
  'detail-type': z.literal(STEP_DETAIL_TYPE),
  detail: z.object({ run_id: id, node: z.enum(STEP_NAMES), workspace }),
});
export const LearnEventSchema = z.object({
  'detail-type': z.literal(LEARN_DETAIL_TYPE),
  detail: z.object({ decision_id: id, workspace }),
});
export const CarryEventSchema = z.object({
  'detail-type': z.literal(CARRY_DETAIL_TYPE),
  detail: z.object({ decision_id: id, workspace }),
});
/** What the resume function is sent: the run's resume step, or an answer to carry out at once. */
export const ResumeEventSchema = z.discriminatedUnion('detail-type', [StepEventSchema, CarryEventSchema]);
export const ChatTurnEventSchema = z.object({
  'detail-type': z.literal(CHAT_TURN_DETAIL_TYPE),
  detail: z.object({ chat_id: id, turn_id: id, message: z.string(), workspace }),
});
/** What the agent function is sent: learning from an answer, or an assistant turn. */
export const AgentEventSchema = z.discriminatedUnion('detail-type', [LearnEventSchema, ChatTurnEventSchema]);
export type AgentEvent = z.infer<typeof AgentEventSchema>;
export const WorkflowEventSchema = z.object({
  'detail-type': z.literal(WORKFLOW_DETAIL_TYPE),
  detail: z.object({ workflow_id: id, change: z.enum(['saved', 'removed']), workspace }),
});
/** A Lambda async invocation record (on-failure destination), as a function or inside an EventBridge event. */
export const FailureRecordSchema = z.object({
  requestContext: z
    .object({
      functionArn: z.string().optional(),
      condition: z.string().optional(),
      approximateInvokeCount: z.number().optional(),
    })
    .optional(),
  requestPayload: z.unknown(),
  responsePayload: z
    .object({ errorMessage: z.string().optional(), errorType: z.string().optional() })
    .nullish()
    .catch(null),
});
export const DESTINATION_DETAIL_TYPE = 'Lambda Function Invocation Result - Failure';

/** Parses an event or throws one line saying what is wrong with it. */
export function parseEvent<S extends z.ZodType>(schema: S, event: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(event);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw new InvalidInputError(`not ${what}: ${where}${issue?.message ?? 'invalid'}`);
}
