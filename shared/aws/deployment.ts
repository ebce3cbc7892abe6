/**
 * The deployment contract between the stack (lib/) and the Lambda functions: what each
 * function is bound to. A binding is one resource, the environment variables that point
 * at it and the permission that makes them work, granted together by the construct's
 * `bind` (lib/). `lambdaEnvFor` reads its variables from here, and the stack test its
 * expectations, so a variable never arrives without its grant or the other way round.
 * Each binding answers one need a module declares (shared/config/needs.ts); the bundle of
 * every function is checked against its list at synth (lib/bindings-check.ts).
 */

import type { Need } from '../config/needs.ts';

/** Needs the stack binds to no function: code that has them is kept out of the Lambda bundles. */
export const UNBOUND_NEEDS = ['agentcore'] as const satisfies readonly Need[];
export type UnboundNeed = (typeof UNBOUND_NEEDS)[number];

/** Set on every function: the deployment's own address, which links and page hosts are built from. */
export const COMMON_VARS = ['UI_BASE_URL'] as const;

/** Each binding and the variables it sets; the grant is the construct's. */
export const BINDING_VARS = {
  /** The store's table, read and write. */
  table: ['HANDOFF_TABLE', 'USE_DYNAMODB'],
  /** The store's table, read only. */
  tableRead: ['HANDOFF_TABLE', 'USE_DYNAMODB'],
  /** The event bus that dispatches steps and workflow changes (events:PutEvents). */
  bus: ['EVENT_BUS_NAME'],
  /** The notification topic (sns:Publish and its key). */
  topic: ['NOTIFY_CHANNEL', 'NOTIFY_TOPIC_ARN'],
  /** The secret that signs decision links. */
  linkKey: ['LINK_KEY_SECRET_ARN'],
  /** The secret that is the event feed's bearer key. */
  apiKey: ['API_KEY_SECRET_ARN'],
  /** The secret webhook bodies are signed with. */
  webhookSecret: ['WEBHOOK_SECRET_ARN'],
  /** The KMS key integration credentials are sealed with (kms:Decrypt). */
  credentialsKey: ['HANDOFF_KMS_KEY_ID'],
  /** The schedule group, Scheduler's role and the trigger it invokes. */
  schedules: ['SCHEDULE_GROUP_NAME', 'SCHEDULER_ROLE_ARN', 'TRIGGER_FUNCTION_ARN'],
  /** Bedrock model calls when the stack's provider is Bedrock (the model settings are common). */
  models: [],
  /** Transcribe streaming and Polly for the Talk page (exactly the two calls speech makes). */
  speech: ['HANDOFF_SPEECH_PROVIDER'],
} as const satisfies Record<Exclude<Need, UnboundNeed> | 'tableRead', readonly string[]>;

export type Binding = keyof typeof BINDING_VARS;

/**
 * What each function is bound to: exactly the needs of the code its bundle reaches (checked
 * at every synth by lib/bindings-check.ts; the template test runs each function with only these).
 */
export const FUNCTION_BINDINGS = {
  /** Checks the source for new mail (its credential) and says so when a run fails. */
  trigger: ['table', 'bus', 'topic', 'credentialsKey'],
  /** The executor acts (credentials), calls the model and pauses runs: it notifies with a signed link. */
  executor: ['table', 'bus', 'topic', 'linkKey', 'credentialsKey', 'models'],
  completer: ['table', 'bus', 'topic'],
  /** Acts on the answers and may ask again: as the executor. */
  resume: ['table', 'bus', 'topic', 'linkKey', 'credentialsKey', 'models'],
  /**
   * Decision pages verify links; `/events/*` wants the API key (`/api/*` is authorised by API
   * Gateway); a manual run's trigger and "Check source" open credentials. No model: learning
   * and assistant turns are sent to the agent function.
   */
  api: ['table', 'bus', 'topic', 'linkKey', 'apiKey', 'credentialsKey', 'speech'],
  /**
   * A workflow's own webhook secret is a credential; the run's trigger checks its source.
   * `speech`: it serves the same app as the api (API Gateway sends it `/hooks/*` only), whose
   * speech routes its bundle reaches; a hooks-only app would drop it.
   */
  webhook: ['table', 'bus', 'topic', 'webhookSecret', 'credentialsKey', 'speech'],
  /** Notes what each schedule was made to be, so the sweeper leaves it alone (schedules/synced.ts). */
  'schedule-sync': ['table', 'schedules'],
  /** Marks a run failed and tells the person: the topic, and where the run's page is. */
  'step-failed': ['table', 'topic'],
  /**
   * Expires overdue decisions, re-sends lost steps and learning, sends notices held over quiet
   * hours, and syncs the schedules a change that announced nothing left behind (the CLI's).
   */
  sweeper: ['table', 'bus', 'topic', 'linkKey', 'schedules'],
  /** Model work off the request path: learning from answers, assistant turns (which may start runs). */
  agent: ['table', 'bus', 'topic', 'credentialsKey', 'models'],
} as const satisfies Record<string, readonly Binding[]>;

export type LambdaFunction = keyof typeof FUNCTION_BINDINGS;

/** The variables function `F`'s bindings set. */
export type BoundVar<F extends LambdaFunction> =
  (typeof COMMON_VARS)[number] | (typeof BINDING_VARS)[(typeof FUNCTION_BINDINGS)[F][number]][number];

/** The variables function `fn` gets: the common ones and those its bindings set, each once. */
export function boundVars<F extends LambdaFunction>(fn: F): BoundVar<F>[] {
  const bindings: readonly Binding[] = FUNCTION_BINDINGS[fn];
  return [...new Set([...COMMON_VARS, ...bindings.flatMap((b) => BINDING_VARS[b])])] as BoundVar<F>[];
}
