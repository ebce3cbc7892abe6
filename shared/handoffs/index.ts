export {
  handoff,
  normaliseName,
  onHandoffForm,
  transferToolName,
  type EnabledFn,
  type Handoff,
  type HandoffInputFilter,
  type HandoffOptions,
  type HandoffPolicy,
  type HandoffRunContext,
  type OnHandoffFn,
  type OnHandoffForm,
  type OnTypedHandoffFn,
} from './handoff.ts';
export { HandoffInputData, type HandoffInputDataInit } from './input-data.ts';
export { compose, keepLastN, removeToolCalls } from './filters.ts';
export { applyBudget, collapse, estimateTokens } from './policy.ts';
export { handoffs, handoffsOf, withHandoffs, type HandoffBinding, type HandoffTargets } from './install.ts';
export {
  handoffRoute,
  HandoffRoute,
  type RouteEnabledFn,
  type RouteForwarding,
  type RouteMatch,
  type RouteOfOptions,
  type RoutePair,
  type RouteTargetOptions,
} from './route.ts';
export {
  resumeWithHandoffs,
  runWithHandoffs,
  type HandoffRunOptions,
  type HandoffRunResult,
  type HandoffRunState,
} from './runner.ts';
export type {
  HandoffCallItem,
  HandoffOutputItem,
  MessageItem,
  RunItem,
  ToolCallItem,
  ToolOutputItem,
} from './items.ts';
export { agentPath, handoffOccurred } from './trajectory.ts';
export {
  AgentHandoffError,
  HandoffCallbackError,
  HandoffConfigError,
  HandoffInputError,
  HandoffLimitError,
  UnhandledIntentError,
} from './errors.ts';
